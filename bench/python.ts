// Python runtime figures for `npm run bench` (docs/python-runtime.md): a program's cold start (no
// pool), warm start (pooled child, spaced so the refill is done), binding round trips, and a 10-wide
// asyncio.gather fan-out of 100 ms concurrency-safe calls through run_code. Each start-up row is a
// ratio to `python3 -c pass` and to `node -e 0`, both measured in this run. Runs alone:
// `node --import ./scripts/ts-register.mjs bench/python.ts`.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext } from '../src/context/context.js';
import type { JsonValue } from '../src/json.js';
import { ptcPlugin } from '../src/ptc/plugin.js';
import type { BindingFunction } from '../src/ptc-runtime/index.js';
import { createPythonRuntime, detectPython, type PythonRuntime } from '../src/languages/python/runtime/index.js';
import { ToolRuntime } from '../src/tools/tool-runtime.js';
import { defineTool } from '../src/tools/types.js';
import { median } from './median.js';

const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 20);
const ROUND_TRIPS = Number(process.env['BENCH_PY_ROUND_TRIPS'] ?? 2_000);
const FAN_OUT_CALL_MS = 100;
const FAN_OUT_WIDTH = 10;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Median wall time of a command started with an empty-ish environment, as the runtime starts its children. */
function processMs(command: string, args: readonly string[]): number {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
  spawnSync(command, args, { env, stdio: 'ignore' });
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    spawnSync(command, args, { env, stdio: 'ignore' });
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function programMs(rt: PythonRuntime, cwd: string, settleMs: number): Promise<number> {
  const echo: BindingFunction = async (args) => args;
  const bindings = [{ global: 'tools', functions: { echo } }];
  const once = async () => {
    const result = await rt.run(await rt.resolve({ program: 'x = await tools.echo(1)\nreturn x + 1', cwd, bindings }));
    if (result.error !== undefined) throw new Error(`bench program failed: ${result.error.code}: ${result.error.message}`);
  };
  await once();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    if (settleMs > 0) await pause(settleMs);
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Sequential binding round trips per second inside one program (the program times itself). */
async function roundTripsPerSec(rt: PythonRuntime, cwd: string): Promise<number> {
  const echo: BindingFunction = async (args) => args;
  const program = `import time\nstart = time.perf_counter()\nfor i in range(${ROUND_TRIPS}):\n    await tools.echo(i)\nreturn ${ROUND_TRIPS} / (time.perf_counter() - start)`;
  const result = await rt.run(await rt.resolve({ program, cwd, bindings: [{ global: 'tools', functions: { echo } }], timeoutMs: 300_000 }));
  if (typeof result.value !== 'number') throw new Error(`round trips failed: ${JSON.stringify(result.error)}`);
  return result.value;
}

/** A 10-wide asyncio.gather of 100 ms concurrency-safe tools through run_code and the dispatch pool. */
async function fanOutMs(rt: PythonRuntime, cwd: string): Promise<number> {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
  root.provide('ptcRuntime', rt);
  root.tools.register(
    defineTool<Record<string, never>, JsonValue>({
      name: 'wait',
      description: `Waits ${FAN_OUT_CALL_MS} ms.`,
      inputSchema: { type: 'object' },
      isConcurrencySafe: true,
      execute: () => new Promise((resolve) => setTimeout(() => resolve(null), FAN_OUT_CALL_MS)),
    }),
  );
  root.plugin(ptcPlugin, { cwd });
  const code = `import asyncio, time\nstart = time.perf_counter()\nawait asyncio.gather(*(tools.wait({}) for _ in range(${FAN_OUT_WIDTH})))\nreturn (time.perf_counter() - start) * 1000`;
  try {
    const samples: number[] = [];
    for (let i = 0; i < Math.min(SAMPLES, 10); i++) {
      const result = await root.tools.execute('run_code', { code, description: 'bench' }, { id: `py-bench${i}` });
      const value = result.value as { result?: unknown } | undefined;
      if (result.isError || typeof value?.result !== 'number') throw new Error(`fan-out failed: ${result.content}`);
      samples.push(value.result);
    }
    return median(samples);
  } finally {
    await root.dispose();
  }
}

export async function pythonRows(): Promise<string[][]> {
  const python = await detectPython('python3');
  const pythonMs = processMs(python.executable, ['-I', '-S', '-c', 'pass']);
  const nodeMs = processMs(process.execPath, ['-e', '0']);
  const ratios = (ms: number) => `${(ms / pythonMs).toFixed(2)}x python3, ${(ms / nodeMs).toFixed(2)}x node`;
  const cwd = mkdtempSync(join(tmpdir(), 'ptc-bench-py-'));
  const cold = createPythonRuntime({ sandbox: 'auto', pool: false });
  const warm = createPythonRuntime({ sandbox: 'auto' });
  try {
    const coldMs = await programMs(cold, cwd, 0);
    const warmMs = await programMs(warm, cwd, 300);
    const backToBackMs = await programMs(warm, cwd, 0);
    const rate = await roundTripsPerSec(warm, cwd);
    const fanOut = await fanOutMs(warm, cwd);
    const backend = (await warm.run(await warm.resolve({ program: 'return 1', cwd }))).sandbox.backend;
    return [
      [`\`python3 -I -S -c pass\` (Python baseline, ${python.version.join('.')})`, `${pythonMs.toFixed(1)} ms`, `1.00x python3, ${(pythonMs / nodeMs).toFixed(2)}x node`],
      ['`node -e 0` (Node baseline)', `${nodeMs.toFixed(1)} ms`, `${(nodeMs / pythonMs).toFixed(2)}x python3, 1.00x node`],
      [`Python program, cold: fresh sandboxed python3 per run, one binding call (${backend})`, `${coldMs.toFixed(1)} ms`, ratios(coldMs)],
      ['Python program, warm: pooled child, runs spaced 300 ms', `${warmMs.toFixed(1)} ms`, ratios(warmMs)],
      [`Python program, warm, ${SAMPLES} back to back with no pause (the pool refills only in pauses, so most start cold)`, `${backToBackMs.toFixed(1)} ms`, ratios(backToBackMs)],
      ['Python binding round trips, sequential in one program', `${Math.round(rate)}/s`, `${(1000 / rate).toFixed(3)} ms each`],
      [
        `Python asyncio.gather of ${FAN_OUT_WIDTH} x ${FAN_OUT_CALL_MS} ms concurrency-safe calls through run_code`,
        `${fanOut.toFixed(1)} ms`,
        `${(fanOut / (FAN_OUT_WIDTH * FAN_OUT_CALL_MS)).toFixed(2)}x serial`,
      ],
    ];
  } finally {
    await cold.close();
    await warm.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await pythonRows();
  const [one, five] = loadavg();
  console.log(`| measurement | median | ratio |\n|---|---|---|\n${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}`);
  console.log(`\nload average ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min); ${SAMPLES} samples`);
}
