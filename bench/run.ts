// `npm run bench`: the runtime's speed figures, each measured in this one run and, for start-up, as a
// ratio to `node -e 0` on the same machine, beside the code-mode peers that run here. Prints markdown
// tables and writes them to bench/RESULTS.md. Every goal of issue 11 is a column judged from the
// numbers of this run; speed is never asserted in tests. docs/benchmarks.md says what each row means.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BindingFunction, RunResult } from '../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../src/languages/typescript/runtime/index.js';
import { setSpawnerEnabled } from '../src/sandbox/index.js';
import { catalogRows } from './catalog.js';
import { cliStartRows } from './cli-start.js';
import { echoContender, warmEchoRates } from './echo-baseline.js';
import { fileToolRows } from './file-tools.js';
import { grepRegexRows } from './grep-regex.js';
import { grepTreeRows } from './grep-tree.js';
import {
  availablePeers,
  type Contender,
  formatRate,
  measureContenders,
  ONE_CALL_PROGRAM,
  pause,
  peerContender,
  peerTable,
  rateProgram,
  type WorkloadFigures,
  type WorkloadPlan,
} from './peers.js';
import { median } from './median.js';
import { nodeBaselineMs } from './node-baseline.js';
import { ptcRows } from './ptc.js';
import { pythonRows } from './python.js';

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(raw)}.`);
  return value;
}

const SAMPLES = numberFromEnv('BENCH_SAMPLES', 30);
const SPACING_MS = numberFromEnv('BENCH_SPACING_MS', 60);
const BACK_TO_BACK_GROUPS = numberFromEnv('BENCH_GROUPS', 5);
const GROUP_SIZE = 10;
const GROUP_PAUSE_MS = numberFromEnv('BENCH_GROUP_PAUSE_MS', 1_000);
const ROUND_TRIPS = numberFromEnv('BENCH_ROUND_TRIPS', 5_000);
const LANE_CALLS = numberFromEnv('BENCH_LANE_CALLS', 20_000);
const RATE_REPEATS = 3;
const RSS_RUNS = numberFromEnv('BENCH_RSS_RUNS', 1_000);

const ALL_PARTS = ['start', 'calls', 'peers', 'memory', 'ptc', 'python', 'grep', 'files', 'catalog', 'cli'] as const;
type Part = (typeof ALL_PARTS)[number];
const PARTS: ReadonlySet<Part> = (() => {
  const raw = process.env['BENCH_PARTS'];
  if (raw === undefined || raw.trim() === '') return new Set(ALL_PARTS);
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(ALL_PARTS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_PARTS: unknown part ${unknown.join(', ')}; the parts are ${ALL_PARTS.join(', ')}.`);
  return new Set(names as Part[]);
})();

const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-'));
const echo: BindingFunction = async (args) => args;
const bindings = [{ global: 'tools', functions: { echo } }];

/** A table row: measurement, median, ratio, and for a row with a goal the goal and whether this run met it. */
type Row = readonly [label: string, value: string, ratio: string, goal?: string, met?: string];

interface Goal {
  readonly text: string;
  readonly op: '<=' | '>=' | '>';
  readonly limit: number;
}

function judge(value: number, goal: Goal): string {
  if (!Number.isFinite(value)) return 'not measured';
  const met = goal.op === '<=' ? value <= goal.limit : goal.op === '>=' ? value >= goal.limit : value > goal.limit;
  return met ? 'met' : '**not met**';
}

function withGoal(label: string, value: string, ratio: string, figure: number, goal: Goal): Row {
  return [label, value, ratio, goal.text, judge(figure, goal)];
}

/**
 * Goals on rows that other bench modules print: the row is found by its label and judged on the
 * first number of the named column, as printed.
 */
interface RowGoal extends Goal {
  readonly labelIncludes: string;
  readonly column: 1 | 2;
}

const ROW_GOALS: readonly RowGoal[] = [
  { labelIncludes: 'run_code sub-calls through the full pipeline, sequential', column: 1, op: '>=', limit: 5_000, text: '>= 5,000/s' },
  { labelIncludes: '`grep` tool, .gitignore respected', column: 2, op: '<=', limit: 3, text: '<= 3x GNU grep' },
];

function firstNumber(text: string): number {
  const match = /-?\d[\d,]*(?:\.\d+)?/.exec(text);
  return match === null ? Number.NaN : Number(match[0].replaceAll(',', ''));
}

function applyRowGoals(rows: readonly (readonly string[])[]): Row[] {
  return rows.map((row) => {
    const [label = '', value = '', ratio = '', ownGoal, ownMet] = row;
    const goal = ROW_GOALS.find((g) => label.includes(g.labelIncludes));
    // A bench module that judges its own rows (bench/cli-start.ts, issue 27's targets) passes them through.
    if (goal === undefined) return ownGoal === undefined ? [label, value, ratio] : [label, value, ratio, ownGoal, ownMet ?? ''];
    return withGoal(label, value, ratio, firstNumber(goal.column === 1 ? value : ratio), goal);
  });
}

async function runOnce(rt: NodeRuntime, program: string): Promise<RunResult> {
  const result = await rt.run(await rt.resolve({ program, cwd: workspace, bindings }));
  if (result.error !== undefined) throw new Error(`bench program failed: ${result.error.code}: ${result.error.message}`);
  return result;
}

/** Our runtime as a contender of the workloads in bench/peers.ts (resolve + run, end to end). */
function ourContender(name: string, rt: NodeRuntime): Contender {
  return {
    name,
    isolating: true,
    oneCall: async () => {
      const result = await runOnce(rt, 'const x: number = await tools.echo(1); return x + 1;');
      if (result.value !== 2) throw new Error(`the one-call program returned ${JSON.stringify(result.value)}, not 2`);
    },
    callsPerSecond: async (calls, width) => {
      const result = await runOnce(rt, rateProgram(calls, width, 'performance.now()'));
      return calls / ((result.value as number) / 1000);
    },
  };
}

/** Cold start: every run spawns its child on demand (no pool), runs back to back. */
async function coldMs(rt: NodeRuntime): Promise<number> {
  await runOnce(rt, ONE_CALL_PROGRAM);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await runOnce(rt, ONE_CALL_PROGRAM);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * The host's CPU time (user + system) per cold run, with bwrap started by the spawner and by the host's
 * own spawn(), taking turns (docs/sandbox.md, "The spawner"): the fork of the host is system time in
 * the host, a request to the spawner is not. Medians of `samples` runs each.
 */
async function coldHostCpuMs(rt: NodeRuntime, samples: number): Promise<{ spawner: number; direct: number }> {
  const cpu = { spawner: [] as number[], direct: [] as number[] };
  try {
    for (let i = 0; i < samples; i++) {
      for (const path of ['spawner', 'direct'] as const) {
        setSpawnerEnabled(path === 'spawner');
        const before = process.cpuUsage();
        await runOnce(rt, ONE_CALL_PROGRAM);
        const used = process.cpuUsage(before);
        cpu[path].push((used.user + used.system) / 1000);
      }
    }
  } finally {
    setSpawnerEnabled(true);
  }
  return { spawner: median(cpu.spawner), direct: median(cpu.direct) };
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

function formatLoad(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
}

const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}x`;

async function main(): Promise<void> {
  // Other work on the machine skews every figure; the load average (1, 5, 15 min) says how much there was.
  const loadAtStart = formatLoad();
  console.error(`load average at start: ${loadAtStart}`);
  const rows: Row[] = [];
  const baseline = nodeBaselineMs(SAMPLES);
  rows.push(['`node -e 0` (baseline)', `${baseline.toFixed(1)} ms`, '1.00x']);
  const plan: WorkloadPlan = {
    perRun: PARTS.has('start'),
    rates: PARTS.has('calls'),
    spacedSamples: SAMPLES,
    spacingMs: SPACING_MS,
    backToBackGroups: BACK_TO_BACK_GROUPS,
    groupSize: GROUP_SIZE,
    groupPauseMs: GROUP_PAUSE_MS,
    sequentialCalls: ROUND_TRIPS,
    laneCalls: LANE_CALLS,
    rateRepeats: RATE_REPEATS,
  };
  let peerLines: string[] = [];

  for (const sandbox of ['auto', 'off'] as const) {
    const cold = createNodeRuntime({ sandbox, pool: false });
    const warm = createNodeRuntime({ sandbox });
    const peers = sandbox === 'auto' && PARTS.has('peers') && (plan.perRun || plan.rates) ? await availablePeers() : [];
    try {
      const probe = await runOnce(cold, 'return 1');
      const label = `sandbox ${sandbox} → ${probe.sandbox.backend}`;
      const byDefault = sandbox === 'auto';
      if (plan.perRun) {
        const coldFigure = await coldMs(cold);
        rows.push(
          byDefault
            ? withGoal(`trivial program, cold (no pool), ${label}`, `${coldFigure.toFixed(1)} ms`, ratio(coldFigure, baseline), coldFigure / baseline, { text: '<= 1.50x', op: '<=', limit: 1.5 })
            : [`trivial program, cold (no pool), ${label}`, `${coldFigure.toFixed(1)} ms`, ratio(coldFigure, baseline)],
        );
        if (byDefault && probe.sandbox.backend === 'bwrap') {
          const cpu = await coldHostCpuMs(cold, SAMPLES);
          rows.push([
            `host CPU per cold run, bwrap started by the spawner / by the host's own spawn() (${SAMPLES} each, taking turns; host RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB)`,
            `${cpu.spawner.toFixed(1)} ms / ${cpu.direct.toFixed(1)} ms`,
            '',
          ]);
        }
      }
      // Our warm runtime and the peers take turns through the same workloads (bench/peers.ts).
      const ours = ourContender(`ours (${probe.sandbox.backend}, full Node)`, warm);
      const contenders = [ours, ...peers.map(peerContender)];
      // The bare echo takes the rate workloads in turns with the others: the baseline of our ratios.
      const echo = echoContender();
      const measured = byDefault && plan.rates ? [...contenders, echo] : contenders;
      const figures = plan.perRun || (byDefault && plan.rates) ? await measureContenders(measured, { ...plan, rates: byDefault && plan.rates }) : new Map<string, WorkloadFigures>();
      const mine = figures.get(ours.name) ?? {};
      if (mine.spacedMs !== undefined && mine.backToBackMs !== undefined) {
        const spacedLabel = `trivial program, warm, spaced ${SPACING_MS} ms, ${label}`;
        const b2bLabel = `trivial program, warm, back to back (${GROUP_SIZE} in a row, median per program), ${label}`;
        if (byDefault) {
          rows.push(withGoal(spacedLabel, `${mine.spacedMs.toFixed(1)} ms`, ratio(mine.spacedMs, baseline), mine.spacedMs / baseline, { text: '<= 0.10x', op: '<=', limit: 0.1 }));
          rows.push(withGoal(b2bLabel, `${mine.backToBackMs.toFixed(1)} ms`, ratio(mine.backToBackMs, baseline), mine.backToBackMs / baseline, { text: '<= 0.15x', op: '<=', limit: 0.15 }));
        } else {
          rows.push([spacedLabel, `${mine.spacedMs.toFixed(1)} ms`, ratio(mine.spacedMs, baseline)]);
          rows.push([b2bLabel, `${mine.backToBackMs.toFixed(1)} ms`, ratio(mine.backToBackMs, baseline)]);
        }
      }
      if (byDefault && mine.sequentialPerSec !== undefined && mine.tenLanesPerSec !== undefined) {
        rows.push(...(await roundTripRows(label, mine, figures.get(echo.name) ?? {}, contenders.slice(1), figures)));
      }
      if (peers.length > 0) peerLines = peerTable(contenders, figures, plan, baseline);
      if (byDefault && PARTS.has('memory')) {
        const memory = await memoryGrowthMb(warm);
        rows.push([
          `host RSS growth over ${RSS_RUNS.toLocaleString('en-US')} sequential runs (warm), ${label}`,
          `${(memory.rssAfter - memory.rssBefore).toFixed(1)} MB (${memory.rssBefore.toFixed(0)} → ${memory.rssAfter.toFixed(0)} MB; ` +
            `V8 heap in use ${memory.heapBefore.toFixed(1)} → ${memory.heapAfter.toFixed(1)} MB)`,
          '',
        ]);
      }
      if (byDefault && PARTS.has('ptc')) {
        // As before the rates: the 1,000 runs above drained the pool, so let it refill first.
        if (PARTS.has('memory')) await pause(GROUP_PAUSE_MS);
        rows.push(...applyRowGoals(await ptcRows(warm, workspace, ROUND_TRIPS)));
      }
    } finally {
      await cold.close();
      await warm.close();
      await Promise.all(peers.map((peer) => peer.close()));
    }
  }

  if (PARTS.has('cli')) {
    rows.push(...applyRowGoals(await cliStartRows()));
  }

  // The Python runtime: ratios to python3 -c pass and node -e 0, measured in bench/python.ts's own turns.
  if (PARTS.has('python')) rows.push(...applyRowGoals(await pythonRows()));

  if (PARTS.has('grep')) {
    rows.push(...applyRowGoals(await grepRegexRows(SAMPLES)));
    rows.push(...applyRowGoals(await grepTreeRows()));
  }

  // The race-safe file tools: ratios are to the check-then-open read measured in the same run.
  if (PARTS.has('files')) rows.push(...applyRowGoals(await fileToolRows()));

  // Prompt size of a large MCP catalog: ratios are to every declaration, measured in the same run.
  if (PARTS.has('catalog')) rows.push(...applyRowGoals(catalogRows()));

  const loadAtEnd = formatLoad();
  const cpu = cpus();
  const header =
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ` +
    `Node ${process.version}, ${process.platform}; load average (1 / 5 / 15 min) ${loadAtStart} at start, ${loadAtEnd} at end. ` +
    `Medians: start-up of ${SAMPLES} runs; warm spaced ${SAMPLES} runs ${SPACING_MS} ms apart; back to back ` +
    `${BACK_TO_BACK_GROUPS} groups of ${GROUP_SIZE} runs with no pause inside a group and ${GROUP_PAUSE_MS} ms between groups; ` +
    `round trips ${RATE_REPEATS} programs of ${ROUND_TRIPS.toLocaleString('en-US')} sequential or ${LANE_CALLS.toLocaleString('en-US')} ` +
    `10-in-flight calls. Goals are issue 11's (CLI start-up: issue 27's), judged on this run's numbers.`;
  const table = [
    header,
    '',
    '| measurement | median | ratio (to `node -e 0` unless stated) | goal | met |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${[row[0], row[1], row[2], row[3] ?? '', row[4] ?? ''].join(' | ')} |`),
  ].join('\n');
  const peersSection =
    peerLines.length === 0
      ? ''
      : [
          '',
          '## Code-mode peers, same workloads, in turns in the same run',
          '',
          'Each contender runs the same JavaScript program bodies with one binding, `tools.echo`, answered by the host ' +
            '(docs/benchmarks.md says how each peer is driven and why these). Per-run rows: median time of one run from the ' +
            'host, as a ratio to `node -e 0`; rate rows: timed inside the program.',
          '',
          ...peerLines,
        ].join('\n');
  console.log(table + (peersSection === '' ? '' : `\n${peersSection}`));
  const out = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
  writeFileSync(out, `# Runtime benchmark (latest \`npm run bench\`)\n\n${table}\n${peersSection === '' ? '' : `${peersSection}\n`}`);
  console.log(`\nwritten to ${out}`);
}

/**
 * Round trips per second, beside the bare fd-3 echo measured in turns with them (a fresh process per
 * pass, as our programs run), the same echo kept warm (shown, no goal), and the fastest isolating one
 * of `peers` in this run.
 */
async function roundTripRows(
  label: string,
  mine: WorkloadFigures,
  echo: WorkloadFigures,
  peers: readonly Contender[],
  figures: ReadonlyMap<string, WorkloadFigures>,
): Promise<Row[]> {
  const sequential = mine.sequentialPerSec ?? Number.NaN;
  const tenLanes = mine.tenLanesPerSec ?? Number.NaN;
  const rows: Row[] = [
    withGoal(`binding round trips, sequential, ${label}`, formatRate(sequential), '', sequential, { text: '>= 10,000/s', op: '>=', limit: 10_000 }),
    withGoal(`binding round trips, 10 in flight, ${label}`, formatRate(tenLanes), '', tenLanes, { text: '>= 50,000/s', op: '>=', limit: 50_000 }),
  ];
  // After the turns, a pause so the warm echo does not share the CPU with the pool's refill.
  await pause(GROUP_PAUSE_MS);
  const warmEcho = await warmEchoRates(ROUND_TRIPS);
  for (const [what, ours, fresh, warm, goal] of [
    ['sequential', sequential, echo.sequentialPerSec ?? Number.NaN, warmEcho.sequentialPerSec, 0.8],
    ['10 in flight', tenLanes, echo.tenLanesPerSec ?? Number.NaN, warmEcho.tenLanesPerSec, 0.6],
  ] as const) {
    rows.push([`bare fd-3 NDJSON echo between two processes, a fresh process per pass, in turns with ours, ${what} (baseline of the next row)`, formatRate(fresh), '1.00x']);
    rows.push(
      withGoal(`binding round trips, ${what}, ${label}, to the bare echo`, formatRate(ours), `${(ours / fresh).toFixed(2)}x`, ours / fresh, {
        text: `>= ${goal.toFixed(2)}x`,
        op: '>=',
        limit: goal,
      }),
    );
    rows.push([
      `the same echo kept in one process and warmed with 1,000 calls, ${what}: ours to it (no goal; docs/benchmarks.md, "The bare echo")`,
      formatRate(warm),
      `${(ours / warm).toFixed(2)}x`,
    ]);
  }
  const isolating = peers.filter((peer) => peer.isolating);
  for (const [what, ourRate, pick] of [
    ['sequential', sequential, (f: WorkloadFigures) => f.sequentialPerSec],
    ['10 in flight', tenLanes, (f: WorkloadFigures) => f.tenLanesPerSec],
  ] as const) {
    const best = isolating
      .map((c) => ({ name: c.name, rate: pick(figures.get(c.name) ?? {}) ?? Number.NaN }))
      .filter((p) => Number.isFinite(p.rate))
      .sort((a, b) => b.rate - a.rate)[0];
    if (best === undefined) continue;
    rows.push(
      withGoal(
        `binding round trips, ${what}: ours to the fastest isolating peer here (${best.name}, ${formatRate(best.rate)})`,
        formatRate(ourRate),
        `${(ourRate / best.rate).toFixed(2)}x`,
        ourRate / best.rate,
        { text: '> 1.00x', op: '>', limit: 1 },
      ),
    );
  }
  return rows;
}

try {
  await main();
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
