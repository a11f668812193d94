// The child's side of the control channel with real sandboxed children: frames that span many reads
// (the child's onread buffer is 64 KiB) with UTF-8 characters cut between reads, writes larger than
// the socket takes at once (the rest goes through the stream), and the order of logs and calls when
// writes switch between writeSync and the stream (docs/control-channel.md, "Hot path").

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BindingFunction, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-channel-framing-'));
const runtime = createNodeRuntime({ sandbox: 'auto', pool: false, limits: { maxOutputBytes: 64 * 1024 * 1024 } });
afterAll(async () => {
  await runtime.close();
  rmSync(workspace, { recursive: true, force: true });
});

const echo: BindingFunction = async (args) => args;
/** 'é' (2 bytes) n times and a closing '€' (3 bytes): an odd length, so characters straddle reads. */
const accents: BindingFunction = async (args) => `${'é'.repeat((args as { n: number }).n)}€`;

async function run(program: string): Promise<RunResult> {
  const request: RunRequest = { program, cwd: workspace, bindings: [{ global: 'tools', functions: { echo, accents } }] };
  return runtime.run(await runtime.resolve(request));
}

describe('control channel framing, child side', () => {
  it('reassembles host frames spread over many reads, with characters split between reads', async () => {
    const result = await run(
      [
        // A program text of ~300 KB: the run frame itself spans several reads.
        `const filler = "${'x'.repeat(300_000)}";`,
        'const one = await tools.accents({ n: 1_500_001 });',
        // Replies of uneven sizes, several to a write, queued while the program is busy: every read
        // fills the buffer and most end inside a frame after an LF.
        'const pending = Array.from({ length: 40 }, (_, k) => tools.accents({ n: 3_000 + 37 * k }));',
        'const until = Date.now() + 300; while (Date.now() < until);',
        'const many = await Promise.all(pending);',
        'const three = await Promise.all([1, 2, 3].map((k) => tools.accents({ n: 70_000 + k })));',
        'const back = await tools.echo({ s: "ü".repeat(2_000_000) });',
        'const manyOk = many.every((t, k) => t.length === 3_001 + 37 * k && t.endsWith("€") && !t.includes("\\ufffd"));',
        'return [filler.length, one.length, one.endsWith("€"), one.indexOf("\\ufffd"), manyOk, three.map((t) => t.length), back.s.length, back.s.indexOf("\\ufffd")];',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual([300_000, 1_500_002, true, -1, true, [70_002, 70_003, 70_004], 2_000_000, -1]);
  }, 60_000);

  it('writes frames larger than the socket takes at once, whole and in order with the calls around them', async () => {
    const result = await run(
      [
        'for (let i = 0; i < 3; i++) {',
        '  console.log(String(i).repeat(3_000_000));',
        '  await tools.echo({ i });',
        '}',
        'return (await tools.echo({ last: true })).last;',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toBe(true);
    expect(result.logs.map((line) => [line.length, line[0]])).toEqual([
      [3_000_000, '0'],
      [3_000_000, '1'],
      [3_000_000, '2'],
    ]);
  }, 60_000);

  it('keeps logs in program order while calls are in flight', async () => {
    const result = await run(
      [
        'const pending = [];',
        'for (let i = 0; i < 2000; i++) {',
        '  console.log(`line ${i}`);',
        '  pending.push(tools.echo(i));',
        '  if (i % 10 === 9) await Promise.all(pending.splice(0));',
        '}',
        'return (await Promise.all(pending)).length;',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.logs).toEqual(Array.from({ length: 2000 }, (_, i) => `line ${i}`));
  }, 60_000);
});
