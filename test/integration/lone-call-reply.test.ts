// A program with one call in flight (docs/control-channel.md, "Hot path"): what the program set going
// besides (a timer, a file read) runs while the call waits, and sequential replies longer than one
// read arrive whole. A child that blocked on fd 3 for a lone call's reply (tried for issue 32,
// docs/benchmarks.md) would fail the first two. Real sandboxed children; the bindings are on the host.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BindingFunction, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-lone-call-'));
const runtime = createNodeRuntime({ sandbox: 'auto', limits: { maxOutputBytes: 16 * 1024 * 1024 } });
afterAll(async () => {
  await runtime.close();
  rmSync(workspace, { recursive: true, force: true });
});

const echo: BindingFunction = async (args) => args;
/** Answers after `ms`, so a program has a call in flight for that long. */
const slow: BindingFunction = (args) => new Promise((resolve) => setTimeout(() => resolve(args), (args as { ms: number }).ms));
/** A string of `n` characters, 'é' (2 bytes each) so the reply spans many reads. */
const big: BindingFunction = async (args) => 'é'.repeat((args as { n: number }).n);

async function run(program: string): Promise<RunResult> {
  return runtime.run(await runtime.resolve({ program, cwd: workspace, bindings: [{ global: 'tools', functions: { echo, slow, big } }] }));
}

describe('a lone call waiting for its reply', () => {
  it("lets the program's own timer fire while the call is in flight", async () => {
    const result = await run(
      [
        'const timer = new Promise((resolve) => setTimeout(() => resolve("timer"), 20));',
        'const first = await Promise.race([tools.slow({ ms: 3000 }), timer]);',
        'return first;',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toBe('timer');
  }, 30_000);

  it('lets a file read the program started complete while its call is in flight', async () => {
    const result = await run(
      [
        'const read = require("node:fs").promises.readFile(__filename_for_test, "utf8").then(() => "read", () => "read");',
        'return await Promise.race([tools.slow({ ms: 3000 }), read]);',
      ]
        .join('\n')
        .replace('__filename_for_test', JSON.stringify('/proc/self/status')),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toBe('read');
  }, 30_000);

  it('gets sequential replies longer than one read whole and in order', async () => {
    const result = await run(
      [
        'const lengths = [];',
        'for (const n of [40_000, 1_000_000, 7, 300_000]) {',
        '  const text = await tools.big({ n });',
        '  lengths.push(text.length, text.includes("\\ufffd"));',
        '  lengths.push((await tools.echo({ n })).n);',
        '}',
        'return lengths;',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual([40_000, false, 40_000, 1_000_000, false, 1_000_000, 7, false, 7, 300_000, false, 300_000]);
  }, 60_000);

  it('answers thousands of sequential calls, each with its own value', async () => {
    const result = await run('let sum = 0;\nfor (let i = 0; i < 3000; i++) sum += (await tools.echo({ i })).i;\nreturn sum;');
    expect(result.error).toBeUndefined();
    expect(result.value).toBe((2999 * 3000) / 2);
  }, 60_000);
});
