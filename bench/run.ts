// `npm run bench`: the runtime's speed figures, each measured in this one run and, for start-up, as a
// ratio to `node -e 0` on the same machine. Prints a markdown table and writes it to bench/RESULTS.md.
// Speed is never asserted in tests; this is where it is watched.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BindingFunction, RunResult } from '../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../src/ptc-runtime-node/index.js';
import { catalogRows } from './catalog.js';
import { fileToolRows } from './file-tools.js';
import { grepRegexRows } from './grep-regex.js';
import { ptcRows } from './ptc.js';

const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 30);
const ROUND_TRIPS = Number(process.env['BENCH_ROUND_TRIPS'] ?? 5_000);
const RSS_RUNS = Number(process.env['BENCH_RSS_RUNS'] ?? 1_000);

const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-'));
const echo: BindingFunction = async (args) => args;
const bindings = [{ global: 'tools', functions: { echo } }];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function nodeBaselineMs(): number {
  // The same minimal environment the runtime gives its children (an inherited env can double start-up).
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
  spawnSync(process.execPath, ['-e', '0'], { env });
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function runOnce(rt: NodeRuntime, program: string): Promise<RunResult> {
  const result = await rt.run(await rt.resolve({ program, cwd: workspace, bindings }));
  if (result.error !== undefined) throw new Error(`bench program failed: ${result.error.code}: ${result.error.message}`);
  return result;
}

/** End-to-end time of a trivial program (resolve + run, one binding call). */
async function trivialMs(rt: NodeRuntime, settleMs: number): Promise<number> {
  const program = 'const x: number = await tools.echo(1); return x + 1;';
  await runOnce(rt, program);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    // Lets a warm pool finish refilling, outside the timed region (0 measures back to back).
    if (settleMs > 0) await pause(settleMs);
    const start = performance.now();
    await runOnce(rt, program);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Binding round trips per second measured inside one program, sequential or `width` in flight. */
async function roundTripsPerSecond(rt: NodeRuntime, width: number): Promise<number> {
  const program = [
    `const n = ${ROUND_TRIPS}, width = ${width};`,
    'const start = performance.now();',
    'for (let i = 0; i < n; i += width) {',
    '  if (width === 1) await tools.echo(i);',
    '  else await Promise.all(Array.from({ length: width }, (_, k) => tools.echo(i + k)));',
    '}',
    'return performance.now() - start;',
  ].join('\n');
  const rates: number[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await runOnce(rt, program);
    rates.push(ROUND_TRIPS / ((result.value as number) / 1000));
  }
  return median(rates);
}

interface MemoryGrowth {
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** V8 heap in use, after a full GC when `--expose-gc` is on: what a leak would show. */
  readonly heapBefore: number;
  readonly heapAfter: number;
}

async function memoryGrowthMb(rt: NodeRuntime): Promise<MemoryGrowth> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const mb = (bytes: number) => bytes / 1024 / 1024;
  for (let i = 0; i < 20; i++) await runOnce(rt, 'return await tools.echo(1);');
  gc?.();
  const before = process.memoryUsage();
  for (let i = 0; i < RSS_RUNS; i++) await runOnce(rt, 'console.log("x"); return await tools.echo({ i: 1 });');
  gc?.();
  const after = process.memoryUsage();
  return { rssBefore: mb(before.rss), rssAfter: mb(after.rss), heapBefore: mb(before.heapUsed), heapAfter: mb(after.heapUsed) };
}

async function main(): Promise<void> {
  // Other work on the machine skews every figure; the 1-minute load average says how much there was.
  const loadAtStart = loadavg()[0] ?? 0;
  const rows: string[][] = [];
  const baseline = nodeBaselineMs();
  rows.push(['`node -e 0` (baseline)', `${baseline.toFixed(1)} ms`, '1.00']);
  const backends: string[] = [];

  for (const sandbox of ['auto', 'off'] as const) {
    const cold = createNodeRuntime({ sandbox, pool: false });
    const warm = createNodeRuntime({ sandbox, pool: { size: 2 } });
    try {
      const probe = await runOnce(cold, 'return 1');
      const label = `${sandbox === 'auto' ? 'auto' : 'off'} → ${probe.sandbox.backend}`;
      backends.push(label);
      const coldMs = await trivialMs(cold, 0);
      const warmMs = await trivialMs(warm, 150);
      const backToBackMs = await trivialMs(warm, 0);
      rows.push([`trivial program, cold (no pool), sandbox ${label}`, `${coldMs.toFixed(1)} ms`, (coldMs / baseline).toFixed(2)]);
      rows.push([`trivial program, warm (pool ready), sandbox ${label}`, `${warmMs.toFixed(1)} ms`, (warmMs / baseline).toFixed(2)]);
      rows.push([`trivial program, warm back to back (refill competing), sandbox ${label}`, `${backToBackMs.toFixed(1)} ms`, (backToBackMs / baseline).toFixed(2)]);
      if (sandbox === 'auto') {
        const sequential = await roundTripsPerSecond(warm, 1);
        const parallel = await roundTripsPerSecond(warm, 10);
        rows.push([`binding round trips, sequential, sandbox ${label}`, `${Math.round(sequential).toLocaleString('en-US')} /s`, '']);
        rows.push([`binding round trips, 10 in flight, sandbox ${label}`, `${Math.round(parallel).toLocaleString('en-US')} /s`, '']);
        const memory = await memoryGrowthMb(warm);
        rows.push([
          `host RSS growth over ${RSS_RUNS.toLocaleString('en-US')} sequential runs (warm), sandbox ${label}`,
          `${(memory.rssAfter - memory.rssBefore).toFixed(1)} MB (${memory.rssBefore.toFixed(0)} → ${memory.rssAfter.toFixed(0)} MB; ` +
            `V8 heap in use ${memory.heapBefore.toFixed(1)} → ${memory.heapAfter.toFixed(1)} MB)`,
          '',
        ]);
        rows.push(...(await ptcRows(warm, workspace, ROUND_TRIPS)));
      }
    } finally {
      await cold.close();
      await warm.close();
    }
  }

  rows.push(...(await grepRegexRows(SAMPLES)));

  // The race-safe file tools: ratios are to the check-then-open read measured in the same run.
  rows.push(...(await fileToolRows()));

  // Prompt size of a large MCP catalog: ratios are to every declaration, measured in the same run.
  rows.push(...catalogRows());

  const cpu = cpus();
  const table = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `Node ${process.version}, ${process.platform}, load average ${loadAtStart.toFixed(2)} at start; medians of ${SAMPLES} samples ` +
      `(round trips: median of 3 programs of ${ROUND_TRIPS.toLocaleString('en-US')} calls).`,
    '',
    '| measurement | median | ratio (to `node -e 0` unless stated) |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
  console.log(table);
  const out = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
  writeFileSync(out, `# Runtime benchmark (latest \`npm run bench\`)\n\n${table}\n`);
  console.log(`\nwritten to ${out}`);
}

try {
  await main();
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
