// Phase profile of a run's process (docs/runtime-lifecycle.md, "Tracing"): per-phase medians for warm
// spaced runs, warm back-to-back runs and cold runs (no pool), next to `node -e 0` measured in the same
// process. Run: node --import ./scripts/ts-register.mjs bench/profile-run.ts [samples]
// (SPACING=<ms> changes the pause between spaced runs, default 60, as in bench/run.ts).
// bench/run.ts may import profileRuns() for its own rows.

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BindingFunction, RunResult } from '../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime, type NodeRuntimeOptions } from '../src/languages/typescript/runtime/index.js';
import { RUN_PHASES, type PhaseTrace, type RunPhase } from '../src/languages/typescript/runtime/trace.js';
import { median } from './median.js';
import { nodeBaselineMs } from './node-baseline.js';

const PROGRAM = 'const x: number = await tools.echo(1); return x + 1;';
const SPACED_PAUSE_MS = Number(process.env['SPACING'] ?? 60);
const BACK_TO_BACK_BATCH = 10;

export interface ProfileRow {
  readonly name: string;
  /** Median end-to-end time of resolve() + run(), ms. */
  readonly totalMs: number;
  /** Median time from the take to each phase, ms. */
  readonly phases: Partial<Record<RunPhase, number>>;
  /** Median boot of the children that ran (spawn to ready) and their launch (plan and spawn), ms. */
  readonly bootMs: number | undefined;
  readonly launchMs: number | undefined;
  /** Runs that settled without the full wait (frozen, or the namespace read from /proc) / all runs. */
  readonly fast: number;
  readonly runs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runOnce(rt: NodeRuntime, cwd: string): Promise<number> {
  const echo: BindingFunction = async (args) => args;
  const start = performance.now();
  const result: RunResult = await rt.run(await rt.resolve({ program: PROGRAM, cwd, bindings: [{ global: 'tools', functions: { echo } }] }));
  const elapsed = performance.now() - start;
  if (result.error !== undefined) throw new Error(`profile program failed: ${result.error.code}: ${result.error.message}`);
  return elapsed;
}

function summarize(name: string, totals: readonly number[], traces: readonly PhaseTrace[]): ProfileRow {
  const phases: Partial<Record<RunPhase, number>> = {};
  for (const phase of RUN_PHASES) {
    const deltas = traces.flatMap((t) => (t.at[phase] !== undefined && t.at.take !== undefined ? [(t.at[phase] as number) - t.at.take] : []));
    if (deltas.length > 0) phases[phase] = median(deltas);
  }
  const span = (from: RunPhase, to: RunPhase) =>
    traces.flatMap((t) => (t.at[from] !== undefined && t.at[to] !== undefined ? [(t.at[to] as number) - (t.at[from] as number)] : []));
  const boot = span('spawn', 'ready');
  const block = span('spawn', 'spawned');
  return {
    name,
    totalMs: median(totals),
    phases,
    bootMs: boot.length > 0 ? median(boot) : undefined,
    launchMs: block.length > 0 ? median(block) : undefined,
    fast: traces.filter((t) => t.settle === 'fast' || t.settle === 'frozen').length,
    runs: traces.length,
  };
}

/** Measures the three modes with `samples` runs each (back to back: batches of 10 until `samples`). */
export async function profileRuns(samples: number, options: NodeRuntimeOptions = {}): Promise<ProfileRow[]> {
  const cwd = mkdtempSync(join(tmpdir(), 'ptc-profile-'));
  const rows: ProfileRow[] = [];
  try {
    const modes: { name: string; pool: NodeRuntimeOptions['pool']; batch: number; pauseMs: number }[] = [
      { name: 'warm, spaced', pool: options.pool ?? {}, batch: 1, pauseMs: SPACED_PAUSE_MS },
      { name: 'warm, back to back', pool: options.pool ?? {}, batch: BACK_TO_BACK_BATCH, pauseMs: 1_000 },
      { name: 'cold (no pool)', pool: false, batch: 1, pauseMs: SPACED_PAUSE_MS },
    ];
    for (const mode of modes) {
      const traces: PhaseTrace[] = [];
      let recording = false;
      const rt = createNodeRuntime({ ...options, pool: mode.pool, onPhases: (trace) => recording && traces.push(trace) });
      await runOnce(rt, cwd);
      await pause(mode.pauseMs);
      recording = true;
      const totals: number[] = [];
      while (totals.length < samples) {
        for (let i = 0; i < mode.batch && totals.length < samples; i++) totals.push(await runOnce(rt, cwd));
        await pause(mode.pauseMs);
      }
      await rt.close();
      rows.push(summarize(mode.name, totals, traces));
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return rows;
}

export function formatProfile(rows: readonly ProfileRow[], baselineMs: number): string {
  const shown: RunPhase[] = ['ready', 'sent', 'done', 'kill', 'empty', 'result', 'exit', 'tmp', 'cleaned'];
  const lines = [
    `| mode | total ms | x node -e 0 | ${shown.map((p) => `${p} +ms`).join(' | ')} | boot ms | launch ms | fast settles (frozen or fast) |`,
    `|---|---|---|${shown.map(() => '---|').join('')}---|---|---|`,
  ];
  const f = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(2));
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${f(row.totalMs)} | ${(row.totalMs / baselineMs).toFixed(3)} | ${shown.map((p) => f(row.phases[p])).join(' | ')} | ${f(row.bootMs)} | ${f(row.launchMs)} | ${row.fast}/${row.runs} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const samples = Number(process.argv[2] ?? 30);
  const baseline = nodeBaselineMs(samples);
  const rows = await profileRuns(samples);
  const after = nodeBaselineMs(samples);
  console.log(`node -e 0: ${baseline.toFixed(2)} ms before, ${after.toFixed(2)} ms after; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('Phases are milliseconds after the run took its child (median).');
  console.log(formatProfile(rows, (baseline + after) / 2));
}
