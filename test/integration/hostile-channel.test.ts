// Hostile programs against the control channel (issue 8, docs/control-channel.md): the program writes
// to fd 3 itself, stops reading its replies, throws huge messages or sabotages the bootstrap's own
// serialisation. Each run must end with its typed error while the host lives, and a trivial run on
// the same runtime must still succeed. These attack the host, not the sandbox, so they run under any
// backend `auto` picks (bwrap on CI).

import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/ptc-runtime/index.js';
import { MAX_ERROR_MESSAGE_BYTES, MAX_QUEUED_REPLY_BYTES } from '../../src/limits.js';
import { channelRuns, SEND } from '../helpers/channel-runs.js';

const MIB = 1024 * 1024;
const big = 'x'.repeat(MIB);

const { attempt } = channelRuns('hostile-channel', { echo: async (args) => args, big: async () => big }, 1);

async function expectNextRunWorks(): Promise<void> {
  const after = await attempt('return 6 * 7');
  expect(after.error).toBeUndefined();
  expect(after.value).toBe(42);
}

function expectCode(result: RunResult, code: string): void {
  expect(result.error?.code, JSON.stringify(result.error)?.slice(0, 500)).toBe(code);
}

/** The message is capped with the visible note, and no larger than the cap plus the note. */
function expectCapped(message: string, totalBytes: number): void {
  expect(message).toContain(`[message truncated: ${totalBytes} bytes in all]`);
  expect(Buffer.byteLength(message, 'utf8')).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
}

const FOREVER = 'await new Promise(() => {});';
const DEPTH = 100_000;
const deep = `"${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}"`;

describe('hostile frames on fd 3', () => {
  it('a done frame nested 100,000 deep is PROTOCOL; the host lives', async () => {
    const result = await attempt(`${SEND}\nsend('{"type":"done","ok":true,"value":' + ${deep} + '}');\n${FOREVER}`);
    expectCode(result, 'PROTOCOL');
    expect(result.error?.message).toMatch(/nested deeper than/);
    await expectNextRunWorks();
  });

  it('a call frame with arguments nested 100,000 deep to an echoing binding is PROTOCOL; the host lives', async () => {
    const result = await attempt(
      `${SEND}\nsend('{"type":"call","id":1,"global":"tools","member":"echo","args":' + ${deep} + '}');\n${FOREVER}`,
    );
    expectCode(result, 'PROTOCOL');
    await expectNextRunWorks();
  });

  it('a program that never reads its replies is stopped at the queued-reply bound; host memory stays bounded', async () => {
    // 400 forged calls of a binding returning 1 MiB, then the program blocks its event loop so fd 3 is
    // never read: unbounded queuing would hold ~400 MiB in the host's socket buffer.
    const program = [
      SEND,
      'for (let id = 1; id <= 400; id++) send(JSON.stringify({ type: "call", id, global: "tools", member: "big", args: {} }));',
      'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);',
      'return "woke";',
    ].join('\n');
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    let result: RunResult;
    try {
      result = await attempt(program);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expectCode(result, 'PROTOCOL');
    expect(result.error?.message).toMatch(/stopped reading/);
    expect(peak - before, `host RSS grew by ${Math.round((peak - before) / MIB)} MiB`).toBeLessThan(MAX_QUEUED_REPLY_BYTES + 84 * MIB);
    await expectNextRunWorks();
  });
});

describe('bounded error text', () => {
  it('a 5 MB exception message is capped with a visible note and keeps the program location', async () => {
    const result = await attempt('throw new Error("x".repeat(5e6));');
    expectCode(result, 'EXCEPTION');
    const message = result.error?.message ?? '';
    expectCapped(message, Buffer.byteLength(`Error: ${'x'.repeat(5e6)} (program.ts:1:7)`));
    expect(message.startsWith('Error: xxxx')).toBe(true);
    expect(message).toMatch(/\(program\.ts:1:7\)$/);
    await expectNextRunWorks();
  });

  it('a forged done-error frame with a 5 MB message is capped', async () => {
    const result = await attempt(
      `${SEND}\nsend(JSON.stringify({ type: "done", ok: false, error: { code: "EXCEPTION", message: "y".repeat(5e6) } }));\n${FOREVER}`,
    );
    expectCode(result, 'EXCEPTION');
    expectCapped(result.error?.message ?? '', 5e6);
    await expectNextRunWorks();
  });

  it('a PROTOCOL error echoing a 5 MB binding name is capped', async () => {
    const result = await attempt(
      `${SEND}\nsend(JSON.stringify({ type: "call", id: 1, global: "g".repeat(5e6), member: "m", args: {} }));\n${FOREVER}`,
    );
    expectCode(result, 'PROTOCOL');
    expect(Buffer.byteLength(result.error?.message ?? '', 'utf8')).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
    await expectNextRunWorks();
  });
});

describe('serialisation the program cannot sabotage', () => {
  // A 30 s deadline: a child that never reports would end as TIMEOUT, which these must not accept.
  it('a throwing Object.prototype.toJSON gives INVALID_OUTPUT, not TIMEOUT', async () => {
    const result = await attempt('Object.prototype.toJSON = () => { throw new Error("x"); };\nreturn { a: 1 };');
    expectCode(result, 'INVALID_OUTPUT');
    await expectNextRunWorks();
  });

  it('a throwing Array.prototype.toJSON gives INVALID_OUTPUT', async () => {
    const result = await attempt('Array.prototype.toJSON = () => { throw new Error("x"); };\nreturn [1, 2];');
    expectCode(result, 'INVALID_OUTPUT');
    await expectNextRunWorks();
  });

  it('a getter that throws only when serialised gives INVALID_OUTPUT', async () => {
    const result = await attempt('let reads = 0;\nreturn { get a() { if (reads++ > 0) throw new Error("second read"); return 1; } };');
    expectCode(result, 'INVALID_OUTPUT');
    await expectNextRunWorks();
  });

  it('a Proxy as the returned value gives INVALID_OUTPUT without running its traps', async () => {
    const result = await attempt(
      // No `get` trap: resolving the program's promise reads `then`, which is the language's doing.
      'const trap = () => { throw new Error("trap ran"); };\nreturn new Proxy({}, { ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap, has: trap });',
    );
    expectCode(result, 'INVALID_OUTPUT');
    expect(result.error?.message).not.toContain('trap ran');
    await expectNextRunWorks();
  });

  it('a getter or a hijacked toJSON in call arguments rejects that call with INVALID_ARGS', async () => {
    const result = await attempt(
      [
        'const codes = [];',
        'try { await tools.echo({ get a() { return 1; } }); } catch (e) { codes.push(e.code); }',
        'Object.prototype.toJSON = () => { throw new Error("x"); };',
        'try { await tools.echo({ b: 1 }); } catch (e) { codes.push(e.code); }',
        'delete Object.prototype.toJSON;',
        'codes.push((await tools.echo({ c: 1 })).c);',
        'return codes;',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual(['INVALID_ARGS', 'INVALID_ARGS', 1]);
  });
});
