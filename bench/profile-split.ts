// Where one sequential round trip's time goes, step by step, in microseconds (docs/benchmarks.md,
// "Round-trip profile"): timestamps on one clock (CLOCK_MONOTONIC, `process.hrtime.bigint()`, the
// same in the child and the host) taken by the program around each call and by the host at three
// public seams the bench wraps for the run: the line decoder's `push` (a read reached the host's
// JavaScript), the binding or the tool's body, and `ProcessChild.send` (the reply's write). Nothing
// in the runtime is instrumented for it.
//
//   node --import ./scripts/ts-register.mjs bench/profile-split.ts [--calls 5000] [--skip 1000] [--rounds 3] [--sandbox auto|off]

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SandboxMode } from '../src/ptc-runtime/index.js';
import { createNodeRuntime } from '../src/languages/typescript/runtime/index.js';
import { LineDecoder } from '../src/ptc-runtime-process/line-decoder.js';
import { ProcessChild } from '../src/ptc-runtime-process/process-child.js';
import { warmEchoRates } from './echo-baseline.js';
import { median } from './median.js';
import { bareRunner, pipelineRunner, type Runner } from './profile-runners.js';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '5000' },
    skip: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    sandbox: { type: 'string', default: 'auto' },
  },
});
const CALLS = Number(flags.calls);
const SKIP = Math.min(Number(flags.skip), CALLS - 1);
const ROUNDS = Number(flags.rounds);

/** The program's own marks per call, in ns after `base`: before the call, after it returned its promise, after the await. */
interface ChildMarks {
  readonly base: string;
  readonly before: number[];
  readonly sent: number[];
  readonly resumed: number[];
}

const PROGRAM = [
  `const n = ${CALLS};`,
  'const now = process.hrtime.bigint; const base = now();',
  'const before = new Array(n), sent = new Array(n), resumed = new Array(n);',
  'for (let i = 0; i < n; i++) {',
  '  before[i] = Number(now() - base);',
  // The call returns its promise once its frame is written (a lone call goes out at once).
  '  const p = tools.echo({ x: i });',
  '  sent[i] = Number(now() - base);',
  '  await p;',
  '  resumed[i] = Number(now() - base);',
  '}',
  'return { base: String(base), before, sent, resumed };',
].join('\n');

/** The host's marks, absolute ns, per call index. */
class HostMarks {
  readonly read = new Array<bigint>(CALLS);
  readonly bound = new Array<bigint>(CALLS);
  readonly write = new Array<bigint>(CALLS);
  readonly written = new Array<bigint>(CALLS);
  calls = 0;
  replies = 0;
  lastRead = 0n;
  recording = false;
}

let marks = new HostMarks();

/** Wraps the two seams for the whole process; only a recording run's marks are kept. */
function wrapSeams(): void {
  const push = LineDecoder.prototype.push;
  LineDecoder.prototype.push = function (this: LineDecoder, chunk: Buffer) {
    if (marks.recording) marks.lastRead = process.hrtime.bigint();
    return push.call(this, chunk);
  };
  const send = ProcessChild.prototype.send;
  ProcessChild.prototype.send = function (this: ProcessChild, ...args: Parameters<ProcessChild['send']>) {
    const m = marks;
    const index = m.replies;
    const record = m.recording && args[0].type === 'result' && index < m.calls;
    if (record) m.write[index] = process.hrtime.bigint();
    const queued = send.apply(this, args);
    if (record) {
      m.written[index] = process.hrtime.bigint();
      m.replies++;
    }
    return queued;
  };
}

/** The host's mark at the binding (bare) or the tool's body (pipeline). */
function atBinding(): void {
  const m = marks;
  if (!m.recording || m.calls >= CALLS) return;
  m.read[m.calls] = m.lastRead;
  m.bound[m.calls] = process.hrtime.bigint();
  m.calls++;
}

interface Steps {
  readonly childWrite: number;
  readonly hostWake: number;
  readonly decode: number;
  readonly reply: number;
  readonly replyWrite: number;
  readonly childWake: number;
  readonly loop: number;
  readonly total: number;
  /** Over every call from the first (the cold ones and the slow wake-ups in the tail included). */
  readonly p90: number;
  readonly mean: number;
}

async function measure(run: Runner<ChildMarks>): Promise<Steps> {
  marks = new HostMarks();
  marks.recording = true;
  const child = await run(PROGRAM);
  marks.recording = false;
  const base = BigInt(child.base);
  const at = (t: bigint | undefined) => (t === undefined ? Number.NaN : Number(t - base));
  const steps = { childWrite: [], hostWake: [], decode: [], reply: [], replyWrite: [], childWake: [], loop: [], total: [] } as Record<Exclude<keyof Steps, 'p90' | 'mean'>, number[]>;
  for (let i = SKIP; i < CALLS - 1; i++) {
    const [c0, c1, c2] = [child.before[i] as number, child.sent[i] as number, child.resumed[i] as number];
    const [h1, h2, h4, h5] = [at(marks.read[i]), at(marks.bound[i]), at(marks.write[i]), at(marks.written[i])];
    steps.childWrite.push(c1 - c0);
    steps.hostWake.push(h1 - c1);
    steps.decode.push(h2 - h1);
    steps.reply.push(h4 - h2);
    steps.replyWrite.push(h5 - h4);
    steps.childWake.push(c2 - h5);
    steps.loop.push((child.before[i + 1] as number) - c2);
    steps.total.push((child.before[i + 1] as number) - c0);
  }
  const us = (values: number[]) => median(values.filter(Number.isFinite)) / 1000;
  const all: number[] = [];
  for (let i = 0; i < CALLS - 1; i++) all.push((child.before[i + 1] as number) - (child.before[i] as number));
  all.sort((a, b) => a - b);
  return {
    p90: (all[Math.floor(all.length * 0.9)] as number) / 1000,
    mean: all.reduce((sum, v) => sum + v, 0) / all.length / 1000,
    childWrite: us(steps.childWrite),
    hostWake: us(steps.hostWake),
    decode: us(steps.decode),
    reply: us(steps.reply),
    replyWrite: us(steps.replyWrite),
    childWake: us(steps.childWake),
    loop: us(steps.loop),
    total: us(steps.total),
  };
}

const ROWS: readonly [keyof Steps, string, string][] = [
  ['childWrite', 'child: the call, its check and encoding, the write(2)', 'the same'],
  ['hostWake', 'host: wake-up and read, up to the line decoder', 'the same'],
  ['decode', 'host: split, bound, parse and shape-check the frame, session checks, up to the binding', 'the same, then run_code\'s binding, the dispatch pool and the pipeline up to the tool\'s body'],
  ['reply', 'host: the binding\'s settlement, the value\'s check, the reply\'s encoding, the tick to the flush', 'the pipeline after the body (checks, copy, render, events), the bridge, then as bare'],
  ['replyWrite', 'host: the reply\'s write', 'the same'],
  ['childWake', 'child: wake-up, read, parse, settle, back in the program after `await`', 'the same'],
  ['loop', 'child: the program\'s loop to its next call', 'the same'],
  ['total', 'one round trip, call to call', 'the same'],
  ['p90', 'one round trip, 90th percentile over every call from the first', 'the same'],
  ['mean', 'one round trip, mean over every call from the first (what the rate of a whole program sees)', 'the same'],
];

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'ptc-split-'));
  wrapSeams();
  // No pool: a refill booting beside the measured program would compete with it for the CPU.
  const runtime = createNodeRuntime({ sandbox: flags.sandbox as SandboxMode, pool: false });
  const bare = bareRunner<ChildMarks>(runtime, cwd, async (args) => {
    atBinding();
    return args;
  });
  const pipeline = pipelineRunner<ChildMarks>(runtime, cwd, ({ x }) => {
    atBinding();
    return x;
  });
  try {
    const load = loadavg()[0] ?? 0;
    const results: { bare: Steps[]; pipeline: Steps[] } = { bare: [], pipeline: [] };
    // Rounds interleave the two, so a change in the machine's load falls on both.
    for (let round = 0; round < ROUNDS; round++) {
      results.bare.push(await measure(bare));
      results.pipeline.push(await measure(pipeline.run));
    }
    const mid = (list: Steps[], key: keyof Steps) => median(list.map((s) => s[key]));
    console.log(
      `Sequential round trip, sandbox ${flags.sandbox}: medians over calls ${SKIP + 1}-${CALLS - 1} of a ${CALLS}-call program in a fresh ` +
        `child, median of ${ROUNDS} programs each; load average ${load.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end.\n`,
    );
    console.log('| step | bare binding, µs | through run_code and the pipeline, µs |');
    console.log('|---|---|---|');
    for (const [key, label, pipelineLabel] of ROWS) {
      const shown = pipelineLabel === 'the same' ? label : `${label} (pipeline: ${pipelineLabel})`;
      console.log(`| ${shown} | ${mid(results.bare, key).toFixed(1)} | ${mid(results.pipeline, key).toFixed(1)} |`);
    }
    const rate = (list: Steps[], key: keyof Steps) => Math.round(1e6 / mid(list, key)).toLocaleString('en-US');
    console.log(`| the median as a rate | ${rate(results.bare, 'total')} /s | ${rate(results.pipeline, 'total')} /s |`);
    console.log(`| the mean as a rate | ${rate(results.bare, 'mean')} /s | ${rate(results.pipeline, 'mean')} /s |`);
    // The baseline of the same run: the bare fd-3 echo between two Node processes (bench/echo-baseline.ts).
    const echo = await warmEchoRates(CALLS);
    console.log(
      `\nbaseline, same run: the bare fd-3 NDJSON echo (warmed, one process) ${Math.round(echo.sequentialPerSec).toLocaleString('en-US')} /s ` +
        `sequential (${(1e6 / echo.sequentialPerSec).toFixed(1)} µs per round trip)`,
    );
  } finally {
    await pipeline.dispose();
    await runtime.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
