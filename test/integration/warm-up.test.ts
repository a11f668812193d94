// The child's warm-up before `ready` (child/bootstrap.ts, warmUp): one run of the bootstrap's own
// program through the whole run path, which must leave nothing behind that a program can see or that
// counts against it: no global, no log line, no byte of the output ledger, call ids from 1 (the host
// checks every id), and the process still ends itself after a stateless run's `done`.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BindingFunction } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-warm-up-'));
/** Exactly the output budget of the ledger test below: 98 characters of log, its newline, and `1`. */
const LEDGER_BYTES = 100;
const runtime = createNodeRuntime({ sandbox: 'auto', limits: { maxOutputBytes: LEDGER_BYTES } });
afterAll(async () => {
  await runtime.close();
  rmSync(workspace, { recursive: true, force: true });
});

const echo: BindingFunction = async (args) => args;
const run = async (program: string) =>
  runtime.run(await runtime.resolve({ program, cwd: workspace, bindings: [{ global: 'tools', functions: { echo } }] }));

describe('the child after its warm-up', () => {
  it('shows a program no trace of it: no global, no log, call ids from 1', async () => {
    const result = await run(
      [
        'const leftovers = Object.getOwnPropertyNames(globalThis).filter((name) => name.startsWith("__ptc"));',
        'const first = await tools.echo({ n: 1 });',
        'const [a, b] = await Promise.all([tools.echo({ n: 2 }), tools.echo({ n: 3 })]);',
        'return { leftovers, warm: typeof __ptcWarmUp, calls: [first, a, b] };',
      ].join('\n'),
    );
    expect(result.error).toBeUndefined();
    expect(result.logs).toEqual([]);
    expect(result.value).toEqual({ leftovers: [], warm: 'undefined', calls: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it('leaves the whole output budget to the program', async () => {
    const fits = await run(`console.log("a".repeat(${LEDGER_BYTES - 2})); return 1;`);
    expect(fits.error).toBeUndefined();
    expect(fits.value).toBe(1);
    const over = await run(`console.log("a".repeat(${LEDGER_BYTES - 1})); return 1;`);
    expect(over.error?.code).toBe('OUTPUT_LIMIT');
  });
});
