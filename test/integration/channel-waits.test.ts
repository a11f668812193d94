// Waiting for frames without sleeping (docs/control-channel.md, "Waiting without sleeping"): after
// the host answers every call in flight it reads the channel for a moment without blocking, and a
// lone call in the child does the same for its reply. These programs try to turn that against the
// host and against themselves: a call loop that never ends, timers that must still fire, frames
// landing right after a reply that must still be checked, and two programs that must both progress.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { RunResult } from '../../src/ptc-runtime/index.js';
import { channelRuns, SEND } from '../helpers/channel-runs.js';

const { attempt } = channelRuns('channel-waits', { echo: async (args) => args }, 2);

describe('waits that hold no loop for long', () => {
  it('a program calling in a loop forever still meets its deadline', async () => {
    // The deadline is a host timer: it fires only if the waits let the host's event loop turn (a
    // held loop would hang here until the test's own timeout).
    const result = await attempt('for (;;) await tools.echo({ n: 1 });', { timeoutMs: 500 });
    expect(result.error?.code).toBe('TIMEOUT');
  });

  it("the host's timers keep running while a program makes sequential calls", async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 1);
    let result: RunResult;
    try {
      result = await attempt('const start = Date.now(); let n = 0; while (Date.now() - start < 1500) { await tools.echo({ n }); n++; } return n;');
    } finally {
      clearInterval(timer);
    }
    expect(result.error).toBeUndefined();
    expect(result.value as number).toBeGreaterThan(100);
    // Waits that held the loop until the program ended would let no tick run for 1.5 s. (Misses
    // turn the loop too; src/ptc-runtime-process/spin-wait.test.ts checks the streak bound itself.)
    expect(ticks).toBeGreaterThan(50);
  });

  it("the program's own timers fire while it makes sequential calls", async () => {
    const result = await attempt(
      [
        'let ticks = 0;',
        'const timer = setInterval(() => ticks++, 1);',
        'const start = Date.now();',
        'let calls = 0;',
        'while (Date.now() - start < 500) { await tools.echo({ calls }); calls++; }',
        'clearInterval(timer);',
        'return { ticks, calls };',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    const { ticks, calls } = result.value as { ticks: number; calls: number };
    expect(calls).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(20);
  });

  it('two programs making sequential calls at once both finish', async () => {
    const program = 'let n = 0; for (let i = 0; i < 3000; i++) { await tools.echo({ i }); n++; } return n;';
    const [a, b] = await Promise.all([attempt(program), attempt(program)]);
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect([a.value, b.value]).toEqual([3000, 3000]);
  });
});

describe('frames a wait catches are checked like any other', () => {
  it('a forged call with a stale id right after a reply is PROTOCOL', async () => {
    const result = await attempt(`${SEND}\nawait tools.echo({ a: 1 });\nsend('{"type":"call","id":1,"global":"tools","member":"echo","args":{}}');\nawait new Promise(() => {});`);
    expect(result.error?.code).toBe('PROTOCOL');
    expect(result.error?.message).toMatch(/duplicate call id 1/);
  });

  it('an oversize frame right after a reply is PROTOCOL', async () => {
    const result = await attempt(
      `${SEND}\nawait tools.echo({ a: 1 });\nsend('{"type":"log","text":"' + 'x'.repeat(20 * 1024 * 1024) + '"}');\nawait new Promise(() => {});`,
    );
    expect(result.error?.code).toBe('PROTOCOL');
    expect(result.error?.message).toMatch(/exceeded/);
  });

  it('a done frame right after a reply settles the run with its value', async () => {
    const result = await attempt('const r = await tools.echo({ a: 41 }); return r.a + 1;');
    expect(result.error).toBeUndefined();
    expect(result.value).toBe(42);
  });
});

describe("the child's waits and writes run no program code", () => {
  // Setters for the fields Node assigns on an empty read's EAGAIN error (and on an object of its own):
  // a wait that read the channel while they stood would run them inside the bootstrap.
  const setters = [
    'globalThis.setterHits = 0;',
    'for (const [proto, name] of [[Error.prototype, "code"], [Error.prototype, "errno"], [Error.prototype, "syscall"], [Object.prototype, "fd"]]) {',
    '  Object.defineProperty(proto, name, { configurable: true, get() { return undefined; }, set(v) {',
    '    globalThis.setterHits++;',
    '    Object.defineProperty(this, name, { value: v, writable: true, configurable: true, enumerable: true });',
    '  } });',
    '}',
  ].join('\n');
  const calls = 'let n = 0; for (let i = 0; i < 200; i++) { await tools.echo({ i }); n++; }';

  it('a program that defines setters Node would call makes sequential calls without the bootstrap calling them', async () => {
    const result = await attempt(`${setters}\n${calls}\nreturn { n, hits: globalThis.setterHits };`);
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ n: 200, hits: 0 });
  });

  it("in a kept process, an earlier program's setters never run in a later program's waits or writes", async () => {
    const kept = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
    let cwd = '';
    try {
      const bindings = [{ global: 'tools', functions: Object.assign(Object.create(null), { echo: async (args: unknown) => args }) }];
      const memoryKey = {};
      cwd = mkdtempSync(join(tmpdir(), 'ptc-channel-waits-kept-'));
      const run = async (program: string) => kept.run(await kept.resolve({ program, cwd, timeoutMs: 30_000, memoryKey, bindings }));
      const first = await run(`${setters}\nreturn "armed";`);
      expect(first.error).toBeUndefined();
      const later = await run(`${calls}\nreturn { n, hits: globalThis.setterHits };`);
      expect(later.error).toBeUndefined();
      expect(later.value).toEqual({ n: 200, hits: 0 });
      // Logs faster than the host reads them: a writeSync into the full socket would throw EAGAIN.
      const flood = await run('const s = "y".repeat(64 * 1024); for (let i = 0; i < 40; i++) console.log(s); return { hits: globalThis.setterHits };');
      expect(flood.error).toBeUndefined();
      expect(flood.logs.length).toBe(40);
      expect(flood.value).toEqual({ hits: 0 });
    } finally {
      await kept.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
