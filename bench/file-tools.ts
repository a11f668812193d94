// File-tool figures for `npm run bench` (docs/file-tools.md): what the race-safe path walk costs per call.
// The baseline, measured in the same run on the same file, is the check-then-open-by-name read the tools
// did before (realpath, containment check, open, fstat, read, close), which a symlink flip could escape.
// Run alone: `node --import ./scripts/ts-register.mjs bench/file-tools.ts`.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createFileTools } from '../src/builtin-tools/index.js';
import { resolveWorkspacePolicy } from '../src/sandbox/index.js';
import type { AnyToolDefinition, ToolExecContext } from '../src/tools/types.js';

const OPS = Number(process.env['BENCH_FILE_OPS'] ?? 5_000);
const WIDTH = 10;
const exec: ToolExecContext = { signal: new AbortController().signal, callId: 'bench', deferContext() {} };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Operations per second of `op`, `width` in flight, median of 3 rounds of `ops` calls. */
async function opsPerSecond(op: () => Promise<unknown>, ops: number, width: number): Promise<number> {
  for (let i = 0; i < Math.min(ops, 500); i++) await op();
  const rates: number[] = [];
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    for (let i = 0; i < ops; i += width) {
      if (width === 1) await op();
      else await Promise.all(Array.from({ length: width }, op));
    }
    rates.push(ops / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

/** The read the tools did before: check the real path, then open the path again by name. */
async function checkThenOpenRead(ws: string, name: string): Promise<string> {
  const real = await fs.realpath(join(ws, name));
  if (!real.startsWith(`${ws}/`)) throw new Error('outside');
  const handle = await fs.open(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    await handle.stat();
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

const fmt = (rate: number): string => `${Math.round(rate).toLocaleString('en-US')} ops/s`;

/** Rows `[measurement, figure, ratio]`; ratios are to the check-then-open read measured here. */
export async function fileToolRows(): Promise<string[][]> {
  const ws = mkdtempSync(join(tmpdir(), 'ptc-bench-files-'));
  try {
    mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
    writeFileSync(join(ws, 'small.txt'), 'hello\nworld\n'.repeat(20));
    for (let i = 0; i < 50; i++) writeFileSync(join(ws, 'src', 'lib', `m${i}.ts`), `export const v${i} = ${i};\n`);
    const tools = new Map<string, AnyToolDefinition>(
      createFileTools({ policy: resolveWorkspacePolicy({ cwd: ws }) }).map((tool) => [tool.name, tool]),
    );
    const call = (name: string, args: unknown) => async () => tools.get(name)!.execute(args as never, exec);
    const baseline1 = await opsPerSecond(() => checkThenOpenRead(ws, 'small.txt'), OPS, 1);
    const baseline10 = await opsPerSecond(() => checkThenOpenRead(ws, 'small.txt'), OPS, WIDTH);
    const read1 = await opsPerSecond(call('read', { path: 'small.txt' }), OPS, 1);
    const read10 = await opsPerSecond(call('read', { path: 'small.txt' }), OPS, WIDTH);
    const deep = await opsPerSecond(call('read', { path: 'src/lib/m7.ts' }), OPS, WIDTH);
    const write = await opsPerSecond(call('write', { path: 'out/w.txt', content: 'x\n' }), Math.min(OPS, 300), 1);
    const glob = await opsPerSecond(call('glob', { pattern: '**/*.ts' }), Math.min(OPS, 1_000), WIDTH);
    const grep = await opsPerSecond(call('grep', { pattern: 'v4\\d' }), Math.min(OPS, 1_000), WIDTH);
    return [
      ['file tools: check-then-open read of a small file (the old, unsafe way; baseline), sequential', fmt(baseline1), '1.00'],
      ['file tools: check-then-open read of a small file (baseline), 10 in flight', fmt(baseline10), '1.00'],
      ['file tools: `read` of a small file (race-safe walk + numbering), sequential', fmt(read1), (read1 / baseline1).toFixed(2)],
      ['file tools: `read` of a small file, 10 in flight', fmt(read10), (read10 / baseline10).toFixed(2)],
      ['file tools: `read` 3 components deep, 10 in flight', fmt(deep), (deep / baseline10).toFixed(2)],
      ['file tools: `write` of a small file (temp + fsync + rename in the opened dir), sequential', fmt(write), ''],
      ['file tools: `glob **/*.ts` over 51 files, 10 in flight', fmt(glob), ''],
      ['file tools: `grep` over 51 files, 10 in flight', fmt(grep), ''],
    ];
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await fileToolRows()) console.log(`| ${row.join(' | ')} |`);
}
