// Where one binding round trip's time goes: the child's JavaScript, the host's JavaScript, and what
// is left (the pipe and waking each process up). Nothing in the runtime is instrumented for this:
// CPU time comes from process.cpuUsage() on each side, so the hot path carries no tracing when this
// script is not running (docs/control-channel.md, "Hot path").
//
//   node --import ./scripts/ts-register.mjs bench/profile-roundtrip.ts [options]
//     --calls <n>      round trips per program (default 5000)
//     --width <n>      calls in flight (default: both 1 and 10)
//     --pipeline       through run_code and the full tool pipeline instead of a bare binding
//     --sandbox <m>    auto (default) | off
//     --cpu-prof       also sample both sides with the inspector and print the top functions by
//                      self time (the child starts its own profiler from inside the program)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SandboxMode } from '../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../src/languages/typescript/runtime/index.js';
import { warmEchoRates } from './echo-baseline.js';
import { bareRunner, pipelineRunner, type Runner as RunnerOf } from './profile-runners.js';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '5000' },
    width: { type: 'string' },
    pipeline: { type: 'boolean', default: false },
    sandbox: { type: 'string', default: 'auto' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const CALLS = Number(flags.calls);
const WIDTHS = flags.width === undefined ? [1, 10] : [Number(flags.width)];
const PROFILE = flags['cpu-prof'] === true;
const CHILD_PROFILE_FILE = 'roundtrip-child.cpuprofile';

interface ProgramReport {
  readonly wallMs: number;
  readonly childCpuMs: number;
  /** The kernel's share of childCpuMs (system time: the channel's syscalls, wake-ups). */
  readonly childSysMs: number;
}

/** A program timing `calls` echo calls, `width` in flight, with its own CPU time; optionally profiled. */
function program(calls: number, width: number, profile: boolean): string {
  const loop = [
    `const n = ${calls}, width = ${width};`,
    'const cpu = process.cpuUsage(); const start = performance.now();',
    'for (let i = 0; i < n; i += width) {',
    '  if (width === 1) await tools.echo({ x: i });',
    '  else await Promise.all(Array.from({ length: width }, (_, k) => tools.echo({ x: i + k })));',
    '}',
    'const wallMs = performance.now() - start; const used = process.cpuUsage(cpu);',
  ];
  const report = 'return { wallMs, childCpuMs: (used.user + used.system) / 1000, childSysMs: used.system / 1000 };';
  if (!profile) return [...loop, report].join('\n');
  return [
    "const inspector = require('node:inspector'); const session = new inspector.Session(); session.connect();",
    'const post = (method, params = {}) => new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));',
    "await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 100 }); await post('Profiler.start');",
    ...loop,
    "const { profile } = await post('Profiler.stop');",
    `require('node:fs').writeFileSync(${JSON.stringify(CHILD_PROFILE_FILE)}, JSON.stringify(profile));`,
    report,
  ].join('\n');
}

type Runner = RunnerOf<ProgramReport>;

function hostCpuMs(): { total: number; sys: number } {
  const used = process.cpuUsage();
  return { total: (used.user + used.system) / 1000, sys: used.system / 1000 };
}

interface Split {
  readonly wallUs: number;
  readonly childUs: number;
  readonly childSysUs: number;
  readonly hostUs: number;
  readonly hostSysUs: number;
  readonly restUs: number;
}

/** Per round trip: wall, child CPU, host CPU (minus an empty program's), and the rest. */
async function measure(run: Runner, width: number): Promise<Split> {
  const emptyStart = hostCpuMs();
  await run(program(0, 1, false));
  const emptyEnd = hostCpuMs();
  const start = hostCpuMs();
  const report = await run(program(CALLS, width, false));
  const end = hostCpuMs();
  const hostMs = end.total - start.total - (emptyEnd.total - emptyStart.total);
  const hostSysMs = end.sys - start.sys - (emptyEnd.sys - emptyStart.sys);
  const perCall = (ms: number): number => (ms * 1000) / CALLS;
  const wallUs = perCall(report.wallMs);
  const childUs = perCall(report.childCpuMs);
  const hostUs = perCall(hostMs);
  return { wallUs, childUs, childSysUs: perCall(report.childSysMs), hostUs, hostSysUs: perCall(hostSysMs), restUs: wallUs - childUs - hostUs };
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The functions with the most self time, as table lines. */
function topFunctions(profile: CpuProfile, count: number): string[] {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byNode.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (node === undefined) return;
    const frame = node.callFrame;
    const key = `${frame.functionName || '(anonymous)'}  ${frame.url === '' ? '' : `${basename(frame.url)}:${frame.lineNumber + 1}`}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(1).padStart(7)} ms  ${key}`);
}

function post<T>(session: Session, method: string, params: object = {}): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));
}

async function profileBoth(run: Runner, cwd: string, width: number): Promise<void> {
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
  await post(session, 'Profiler.start');
  await run(program(CALLS, width, true));
  const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
  session.disconnect();
  const child = JSON.parse(readFileSync(join(cwd, CHILD_PROFILE_FILE), 'utf8')) as CpuProfile;
  console.log(`\nwidth ${width}: child, top functions by self time`);
  console.log(topFunctions(child, 20).join('\n'));
  console.log(`\nwidth ${width}: host, top functions by self time`);
  console.log(topFunctions(profile, 20).join('\n'));
}

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'ptc-profile-'));
  // No pool: a refill booting beside the measured program would compete with it for the CPU.
  const runtime = createNodeRuntime({ sandbox: flags.sandbox as SandboxMode, pool: false });
  const pipeline = flags.pipeline ? pipelineRunner<ProgramReport>(runtime, cwd) : undefined;
  const run = pipeline?.run ?? bareRunner<ProgramReport>(runtime, cwd);
  try {
    console.log(
      `${flags.pipeline ? 'run_code + full pipeline' : 'bare binding'}, sandbox ${flags.sandbox}, ${CALLS} calls per program, ` +
        `load average ${(loadavg()[0] ?? 0).toFixed(2)}`,
    );
    await run(program(Math.min(CALLS, 1000), 1, false));
    for (const width of WIDTHS) {
      const samples: Split[] = [];
      for (let i = 0; i < 3; i++) samples.push(await measure(run, width));
      const mid = samples.sort((a, b) => a.wallUs - b.wallUs)[1] as Split;
      console.log(
        `width ${String(width).padStart(2)}: ${Math.round(1e6 / mid.wallUs).toLocaleString('en-US')} /s; per call ` +
          `${mid.wallUs.toFixed(1)} µs = child ${mid.childUs.toFixed(1)} (sys ${mid.childSysUs.toFixed(1)}) + ` +
          `host ${mid.hostUs.toFixed(1)} (sys ${mid.hostSysUs.toFixed(1)}) + ` +
          `pipe and wake-ups ${mid.restUs.toFixed(1)} (negative when the two sides overlap)`,
      );
    }
    const echo = await warmEchoRates(CALLS);
    console.log(
      `bare fd-3 NDJSON echo (warmed, one process): ${Math.round(echo.sequentialPerSec).toLocaleString('en-US')} /s sequential, ` +
        `${Math.round(echo.tenLanesPerSec).toLocaleString('en-US')} /s with 10 in flight`,
    );
    if (PROFILE) for (const width of WIDTHS) await profileBoth(run, cwd, width);
  } finally {
    await pipeline?.dispose();
    await runtime.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
