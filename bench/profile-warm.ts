// Where one warm spaced run's time goes, step by step, in microseconds (docs/benchmarks.md, "Warm
// run profile"): from the caller's resolve() to the moment its await of run() resumes, for a program
// with one awaited binding call. Timestamps on one clock (CLOCK_MONOTONIC: `process.hrtime.bigint()`
// in the child and the host; the runtime's phase trace, `performance.now()`, mapped onto it): the
// program's own marks, the phase trace (take, done, kill, empty, result), and three public seams the
// bench wraps for the run: the line decoder's `push` (a read reached the host's JavaScript), the
// binding, and `ProcessChild.send` (the run frame's and the reply's writes). Nothing in the runtime
// is instrumented for it beyond the phase trace it already has.
//
//   node --import ./scripts/ts-register.mjs bench/profile-warm.ts [--runs 40] [--spacing 60] [--rounds 1]

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createNodeRuntime } from '../src/languages/typescript/runtime/index.js';
import type { PhaseTrace } from '../src/languages/typescript/runtime/trace.js';
import { LineDecoder } from '../src/ptc-runtime-process/line-decoder.js';
import { ProcessChild } from '../src/ptc-runtime-process/process-child.js';
import { median } from './median.js';
import { nodeBaselineMs } from './node-baseline.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    spacing: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '1' },
  },
});
const RUNS = Number(flags.runs);
const SPACING_MS = Number(flags.spacing);
const ROUNDS = Number(flags.rounds);

const PROGRAM = [
  'const now = process.hrtime.bigint;',
  'const start = String(now());',
  'const p = tools.echo(1);',
  'const called = String(now());',
  'const x = await p;',
  'const resumed = String(now());',
  'return { start, called, resumed, x };',
].join('\n');

interface ChildMarks {
  readonly start: string;
  readonly called: string;
  readonly resumed: string;
}

/** The host's marks of the run being recorded, absolute ns. */
class HostMarks {
  reads: bigint[] = [];
  runWrite = 0n;
  runWritten = 0n;
  bound = 0n;
  replyWrite = 0n;
  replyWritten = 0n;
  trace: PhaseTrace | undefined;
  recording = false;
}

let marks = new HostMarks();

function wrapSeams(): void {
  const push = LineDecoder.prototype.push;
  LineDecoder.prototype.push = function (this: LineDecoder, chunk: Buffer) {
    if (marks.recording) marks.reads.push(process.hrtime.bigint());
    return push.call(this, chunk);
  };
  const send = ProcessChild.prototype.send;
  ProcessChild.prototype.send = function (this: ProcessChild, ...args: Parameters<ProcessChild['send']>) {
    const m = marks;
    const type = args[0].type;
    const before = process.hrtime.bigint();
    const queued = send.apply(this, args);
    const after = process.hrtime.bigint();
    if (m.recording && type === 'run') [m.runWrite, m.runWritten] = [before, after];
    if (m.recording && type === 'result') [m.replyWrite, m.replyWritten] = [before, after];
    return queued;
  };
}

/** The steps, in order; each is the time from the end of the one before. */
const STEPS = [
  ['resolve', "resolve(): the request's checks"],
  ['toTake', 'run() up to taking the warm child (TypeScript strip, pool take)'],
  ['toRunWrite', 'take to the run frame write (session set-up: timers, listeners, attach, frame)'],
  ['runWrite', "the run frame's encode and write"],
  ['childStart', "the child: wake, read, decode, compile, start the program"],
  ['childCall', "the child: the program's call, up to its frame written"],
  ['hostWake', 'host wake-up and read of the call'],
  ['dispatch', 'decode, validation, binding dispatch'],
  ['reply', 'the binding and the reply up to its write'],
  ['replyWrite', "the reply's encode and write"],
  ['childWake', 'child wake-up, decode, the await resumes'],
  ['childDone', 'the program returns, the done frame is written and read by the host'],
  ['doneToKill', 'done frame decode to the kill (settle, dispose)'],
  ['settle', 'kill to the sandbox verified empty'],
  ['toResult', 'empty to the result handed back'],
  ['toCaller', "result to the caller's await resuming"],
] as const;
type Step = (typeof STEPS)[number][0];

async function oneRun(rt: ReturnType<typeof createNodeRuntime>, cwd: string): Promise<Record<Step, number> & { total: number }> {
  marks = new HostMarks();
  const echo = async (args: unknown) => {
    if (marks.recording) marks.bound = process.hrtime.bigint();
    return args as number;
  };
  marks.recording = true;
  const t0 = process.hrtime.bigint();
  const spec = await rt.resolve({ program: PROGRAM, cwd, bindings: [{ global: 'tools', functions: { echo } }] });
  const tResolved = process.hrtime.bigint();
  const result = await rt.run(spec);
  const tEnd = process.hrtime.bigint();
  // The phase trace is emitted with the cleanup, after the result: wait for it.
  for (let i = 0; i < 200 && marks.trace === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  marks.recording = false;
  if (result.error !== undefined) throw new Error(`${result.error.code}: ${result.error.message}`);
  const child = result.value as unknown as ChildMarks;
  const trace = marks.trace;
  if (trace === undefined) throw new Error('no phase trace');
  // performance.now() and hrtime are both monotonic: one offset maps the trace onto hrtime.
  const offsetNs = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
  const fromTrace = (phase: keyof PhaseTrace['at']) => BigInt(Math.round((trace.at[phase] as number) * 1e6)) + offsetNs;
  const [start, called, resumed] = [BigInt(child.start), BigInt(child.called), BigInt(child.resumed)];
  // The last read before the binding ran: the call's (the child may be read before its own mark after the call).
  const callRead = marks.reads.filter((t) => t <= marks.bound).pop() ?? 0n;
  const done = fromTrace('done');
  const at: bigint[] = [
    t0,
    tResolved,
    fromTrace('take'),
    marks.runWrite,
    marks.runWritten,
    start,
    called,
    callRead,
    marks.bound,
    marks.replyWrite,
    marks.replyWritten,
    resumed,
    done,
    fromTrace('kill'),
    fromTrace('empty'),
    fromTrace('result'),
    tEnd,
  ];
  const out = { total: Number(tEnd - t0) / 1e3 } as Record<Step, number> & { total: number };
  STEPS.forEach(([step], i) => {
    out[step] = Number((at[i + 1] as bigint) - (at[i] as bigint)) / 1e3;
  });
  return out;
}

wrapSeams();
const cwd = mkdtempSync(join(tmpdir(), 'ptc-profile-warm-'));
try {
  const baseline = nodeBaselineMs(20);
  const rounds: (Record<Step, number> & { total: number })[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rt = createNodeRuntime({ pool: {}, onPhases: (trace) => (marks.recording ? (marks.trace = trace) : undefined) });
    const samples: (Record<Step, number> & { total: number })[] = [];
    // A first run primes the pool for the policy.
    await oneRun(rt, cwd);
    for (let i = 0; i < RUNS; i++) {
      await new Promise((r) => setTimeout(r, SPACING_MS));
      samples.push(await oneRun(rt, cwd));
    }
    await rt.close();
    const row = { total: median(samples.map((s) => s.total)) } as Record<Step, number> & { total: number };
    for (const [step] of STEPS) row[step] = median(samples.map((s) => s[step]));
    rounds.push(row);
  }
  const after = nodeBaselineMs(20);
  const nodeMs = (baseline + after) / 2;
  console.log(`node -e 0: ${baseline.toFixed(2)} ms before, ${after.toFixed(2)} ms after; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`warm spaced run (${RUNS} runs, ${SPACING_MS} ms apart), medians per step in µs${ROUNDS > 1 ? `, rounds 1-${ROUNDS}` : ''}:`);
  console.log(`| step | what | ${rounds.map((_, i) => `µs (round ${i + 1})`).join(' | ')} |`);
  console.log(`|---|---|${rounds.map(() => '---|').join('')}`);
  for (const [step, what] of STEPS) console.log(`| ${step} | ${what} | ${rounds.map((r) => r[step].toFixed(0)).join(' | ')} |`);
  console.log(`| total | median of the end-to-end times | ${rounds.map((r) => `${r.total.toFixed(0)} (${(r.total / 1e3 / nodeMs).toFixed(3)}x)`).join(' | ')} |`);
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
