// Queue mode's scaling: the offline replay of M3ToolEval (ptc and standard) run by the built `ptc`
// binary once locally (`--jobs 1`, the baseline) and then through `--queue` on a real redis-server
// with 1, 2 and 4 `ptc worker` processes (concurrency 1 each, started and idle before the run).
// Reports wall time, jobs per second, the speed-up over the local run and the queue's overhead per
// job: the time outside the task runs (wall time minus the runs' own wallMs) of 1 worker against
// local, which a loaded machine skews less than wall time. Each configuration runs --rounds times
// in turn (local, 1, 2, 4 workers, local, ...); medians are reported. Writes bench/EVAL-QUEUE.md:
//   npm run build && node --import ./scripts/ts-register.mjs bench/eval-queue.ts [--tasks <globs>] [--workers 1,2,4] [--rounds 2]
// Needs redis-server (apt-get install -y redis-server). docs/eval.md, "Queue mode".

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readResults } from '../src/eval/results.js';
import { redisServerPath, startRedis } from '../test/helpers/redis-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'dist/cli/main.js');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const tasks = arg('--tasks');
const workerCounts = (arg('--workers') ?? '1,2,4').split(',').map(Number);
const rounds = Number(arg('--rounds') ?? '1');

if (redisServerPath === undefined) {
  process.stderr.write('bench/eval-queue.ts needs redis-server (apt-get install -y redis-server).\n');
  process.exit(2);
}
if (!fs.existsSync(bin)) {
  process.stderr.write('bench/eval-queue.ts runs the built binary: npm run build first.\n');
  process.exit(2);
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bench-queue-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };

function run(args: string[]): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, exited: new Promise((resolve) => child.on('close', resolve)), stderr: () => stderr };
}

interface Row {
  label: string;
  seconds: number;
  /** The task runs' own time (sum of wallMs), in seconds. */
  taskSeconds: number;
  jobs: number;
  ok: number;
}

let runNumber = 0;
async function evalRun(label: string, extra: string[]): Promise<Row> {
  const out = path.join(home, `${label.replace(/\W+/g, '-')}-${runNumber++}`);
  const started = process.hrtime.bigint();
  const proc = run(['eval', 'm3tooleval', '--replay', '--presets', 'ptc,standard', ...(tasks ? ['--tasks', tasks] : []), '--out', out, ...extra]);
  const code = await proc.exited;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`${label}: ptc eval exited ${code}:\n${proc.stderr()}`);
  const results = readResults(out);
  return { label, seconds, taskSeconds: results.reduce((sum, r) => sum + r.wallMs, 0) / 1000, jobs: results.length, ok: results.filter((r) => r.success).length };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const loadBefore = os.loadavg()[0]!;
const redis = await startRedis();
const measured: Row[] = [];
try {
  for (let round = 0; round < rounds; round++) {
    measured.push(await evalRun('local, --jobs 1', ['--jobs', '1']));
    for (const count of workerCounts) {
      const workers = Array.from({ length: count }, () => run(['worker', '--queue', redis.url]));
      for (const w of workers) while (!w.stderr().includes('waiting for jobs')) await new Promise((r) => setTimeout(r, 50));
      try {
        measured.push(await evalRun(`queue, ${count} worker${count === 1 ? '' : 's'}`, ['--queue', redis.url]));
      } finally {
        for (const w of workers) w.child.kill('SIGTERM');
        await Promise.all(workers.map((w) => w.exited));
      }
    }
  }
} finally {
  await redis.close();
  fs.rmSync(home, { recursive: true, force: true });
}
const loadAfter = os.loadavg()[0]!;

const labels = [...new Set(measured.map((r) => r.label))];
const rows: Row[] = labels.map((label) => {
  const of = measured.filter((r) => r.label === label);
  return { label, seconds: median(of.map((r) => r.seconds)), taskSeconds: median(of.map((r) => r.taskSeconds)), jobs: of[0]!.jobs, ok: Math.min(...of.map((r) => r.ok)) };
});
const local = rows[0]!;
const outside = (r: Row): number => r.seconds - r.taskSeconds;
// With several workers the runs overlap, so wall time minus their sum means nothing.
const single = (r: Row): boolean => r.label === local.label || r.label === 'queue, 1 worker';
const table = [
  '| run | jobs | success | wall time | task runs (sum) | outside the task runs | jobs/s | speed-up over local | overhead per job vs local |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const overhead = r.label === 'queue, 1 worker' ? `${(((outside(r) - outside(local)) / r.jobs) * 1000).toFixed(0)} ms` : '';
    return `| ${r.label} | ${r.jobs} | ${r.ok}/${r.jobs} | ${r.seconds.toFixed(1)} s | ${r.taskSeconds.toFixed(1)} s | ${single(r) ? `${outside(r).toFixed(1)} s` : ''} | ${(r.jobs / r.seconds).toFixed(2)} | ${(local.seconds / r.seconds).toFixed(2)}x | ${overhead} |`;
  }),
].join('\n');
const markdown = [
  '# Queue mode scaling (bench/eval-queue.ts)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ` +
    `redis-server on loopback; load average ${loadBefore.toFixed(2)} before and ${loadAfter.toFixed(2)} after. ` +
    `M3ToolEval replay (no model), presets ptc and standard${tasks ? `, tasks ${tasks}` : ', all 82 tasks'}; medians of ${rounds} round(s). Wall time of \`ptc eval\` from start to exit ` +
    '(process start-up, queueing, the runs, collecting and the summary); workers were started and idle before it. "Task runs" sums ' +
    "the runs' own wall time (wallMs); the overhead per job is the time outside them, 1 worker against local, divided by the jobs. " +
    'All workers run on this one machine, so beyond its core count they compete for the same CPUs: read the speed-up as what the queue ' +
    'adds or costs here, and expect it to grow with machines, not with workers on one machine.',
  '',
  table,
  '',
].join('\n');
fs.writeFileSync(path.join(root, 'bench', 'EVAL-QUEUE.md'), markdown);
process.stdout.write(markdown);
