// Queue mode with real parts: a real redis-server on a free loopback port (test/helpers/redis-server.ts),
// real `ptc worker` and `ptc eval --queue` processes of the built binary, and the replay model or the
// scripted OpenAI-compatible server on loopback (no model key). docs/eval.md, "Queue mode".

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readResults, type TaskResult } from '../../src/eval/results.js';
import { runEval, DEFAULT_REPLAY_MAX_STEPS } from '../../src/eval/runner.js';
import { QUEUE_PREFIX, RUNS_KEY } from '../../src/eval/queue/job.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { freePort, skipWithoutRedis, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-queue-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
/** Short locks so a killed worker's job comes back quickly; the defaults are in src/limits.ts. */
const FAST_STALL = ['--lock-duration', '1500', '--stalled-interval', '500'];
const WAIT_MS = 60_000;
/** Bound of one test (several processes start, and a killed worker's lock must expire). */
const TEST_MS = 120_000;
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

interface Proc {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
  /** `host:pid`, as results name a worker. */
  readonly id: string;
}

const running: Proc[] = [];
/** Every process a test starts is killed after it, so no worker of one test serves the next test's run. */
function ptc(args: string[], extraEnv: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [bin, ...args], { cwd: home, env: { ...env, ...extraEnv } });
  const proc: Proc = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    id: `${os.hostname()}:${child.pid}`,
  };
  child.stdout!.on('data', (d: Buffer) => (proc.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (proc.stderr += d.toString()));
  running.push(proc);
  return proc;
}

function worker(url: string, extra: string[] = [], extraEnv: Record<string, string> = {}): Proc {
  return ptc(['worker', '--queue', url, ...extra], extraEnv);
}
async function stopAll(): Promise<void> {
  for (const proc of running.splice(0)) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

const waitFor = (what: string, condition: () => boolean) => waitUntil(what, condition, WAIT_MS);
const lines = (dir: string): number => (fs.existsSync(path.join(dir, 'results.jsonl')) ? readResults(dir).length : 0);
const comparable = (r: TaskResult) => ({
  task: r.task,
  preset: r.preset,
  success: r.success,
  answer: r.answer,
  turns: r.turns,
  reason: r.reason,
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  toolCalls: r.toolCalls,
  subCalls: r.subCalls,
  toolResultTokens: r.toolResultTokens,
});
const byKey = (a: { task: string; preset: string }, b: { task: string; preset: string }) => `${a.task} ${a.preset}`.localeCompare(`${b.task} ${b.preset}`);

const REPLAY_TASKS = 'travel_itinerary_planning/plan_trip_to_0,cryptobotanists_plant_dna_sequencer/*palindrome*,trade_calculator/*0';
const DNA_TASK = 'cryptobotanists_plant_dna_sequencer/find_most_common_nucleotide_and_transcribe';

describe.skipIf(skipWithoutRedis)('ptc eval --queue and ptc worker (real redis-server)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await stopAll();
    // Each test starts from an empty Redis (runs a failed test left behind would draw its workers).
    const client = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true });
    await client.connect();
    await client.flushall();
    client.disconnect();
  });
  afterAll(async () => {
    await stopAll();
    await redis?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('two workers share a replay run and give the same results as a local run', { timeout: TEST_MS }, async () => {
    const local = await runEval({ suite: 'm3tooleval', presets: ['ptc', 'standard'], tasks: REPLAY_TASKS.split(','), replay: true, maxSteps: DEFAULT_REPLAY_MAX_STEPS, out: path.join(home, 'local') });
    const a = worker(redis.url);
    const b = worker(redis.url);
    const out = path.join(home, 'shared');
    const evalProc = ptc(['eval', 'm3tooleval', '--replay', '--presets', 'ptc,standard', '--tasks', REPLAY_TASKS, '--queue', redis.url, '--out', out]);
    expect(await evalProc.exited, evalProc.stderr).toBe(0);
    const results = readResults(out);
    expect(results.length).toBe(local.results.length);
    expect(results.map(comparable).sort(byKey)).toEqual(local.results.map(comparable).sort(byKey));
    expect(new Set(results.map((r) => r.jobId)).size).toBe(results.length);
    for (const r of results) {
      expect([a.id, b.id]).toContain(r.worker);
      // The log came back with the job: the run directory reads as a local one's.
      const log = fs.readFileSync(path.join(out, r.sessionFile), 'utf8').split('\n')[0]!;
      expect(JSON.parse(log)).toMatchObject({ type: 'session/start' });
    }
    expect(evalProc.stdout).toContain(`| ptc | ${local.results.length / 2}/${local.results.length / 2} (100.0%) |`);
    expect(fs.existsSync(path.join(out, 'summary.svg'))).toBe(true);
    // A finished run leaves nothing in Redis: its results are in the run directory.
    const { queue: ref } = JSON.parse(fs.readFileSync(path.join(out, 'run.json'), 'utf8')) as { queue: { runId: string } };
    const client = new Redis({ host: '127.0.0.1', port: redis.port });
    try {
      expect(await client.keys(`${QUEUE_PREFIX}:${ref.runId}*`)).toEqual([]);
      expect(await client.exists(`${QUEUE_PREFIX}:run:${ref.runId}`)).toBe(0);
      expect(await client.smembers(RUNS_KEY)).not.toContain(ref.runId);
    } finally {
      client.disconnect();
    }
  });

  it('a worker with --session-dir writes the session logs there and the results name them', { timeout: TEST_MS }, async () => {
    const shared = path.join(home, 'shared-fs');
    worker(redis.url, ['--session-dir', shared]);
    const out = path.join(home, 'shared-logs');
    const evalProc = ptc(['eval', 'm3tooleval', '--replay', '--preset', 'standard', '--tasks', 'travel_itinerary_planning/plan_trip_to_0', '--queue', redis.url, '--out', out]);
    expect(await evalProc.exited, evalProc.stderr).toBe(0);
    const [result] = readResults(out);
    expect(path.dirname(result!.sessionFile)).toBe(shared);
    expect(JSON.parse(fs.readFileSync(result!.sessionFile, 'utf8').split('\n')[0]!)).toMatchObject({ type: 'session/start' });
    expect(fs.existsSync(path.join(out, 'sessions'))).toBe(false);
  });

  it('a job of a worker killed with kill -9 mid-task completes on another worker and appears once', { timeout: TEST_MS }, async () => {
    const model = await startScriptedOpenAIServer([reply.hang()]);
    try {
      const out = path.join(home, 'killed');
      const evalProc = ptc(['eval', 'm3tooleval', '--base-url', model.baseUrl, '--model', 'scripted', '--preset', 'standard', '--tasks', DNA_TASK, '--queue', redis.url, '--out', out]);
      const doomed = worker(redis.url, FAST_STALL);
      await model.waitForRequests(1); // the doomed worker is mid-task: its model request hangs
      const rescuer = worker(redis.url, FAST_STALL);
      await waitFor('the second worker to start', () => rescuer.stderr.includes('waiting for jobs'));
      model.push(reply.toolCall('reverse_string', { string: 'abc' }), reply.text('Answer: UUU'));
      doomed.child.kill('SIGKILL');
      expect(await evalProc.exited, evalProc.stderr).toBe(0);
      const results = readResults(out);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ task: DNA_TASK, success: true, turns: 2, worker: rescuer.id });
      expect(model.requests).toHaveLength(3);
    } finally {
      await model.close();
    }
  });

  it('SIGTERM puts a running job back in the queue; another worker finishes it and the stopped worker exits 0', { timeout: TEST_MS }, async () => {
    const model = await startScriptedOpenAIServer([reply.hang()]);
    try {
      const out = path.join(home, 'sigterm');
      const evalProc = ptc(['eval', 'm3tooleval', '--base-url', model.baseUrl, '--model', 'scripted', '--preset', 'standard', '--tasks', DNA_TASK, '--queue', redis.url, '--out', out]);
      const leaving = worker(redis.url, ['--grace', '100']);
      await model.waitForRequests(1);
      const staying = worker(redis.url);
      await waitFor('the second worker to start', () => staying.stderr.includes('waiting for jobs'));
      model.push(reply.toolCall('reverse_string', { string: 'abc' }), reply.text('Answer: UUU'));
      leaving.child.kill('SIGTERM');
      expect(await leaving.exited, leaving.stderr).toBe(0);
      expect(leaving.stderr).toContain('0 job(s) done, 0 failed, 1 put back');
      expect(await evalProc.exited, evalProc.stderr).toBe(0);
      const results = readResults(out);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ success: true, worker: staying.id });
    } finally {
      await model.close();
    }
  });

  it('a Redis restart mid-run: the run goes on when it is back, with every task exactly once', { timeout: TEST_MS }, async () => {
    const tasks = 'message_decoder/*';
    const out = path.join(home, 'restart');
    worker(redis.url);
    const evalProc = ptc(['eval', 'm3tooleval', '--replay', '--presets', 'ptc,standard', '--tasks', tasks, '--queue', redis.url, '--out', out]);
    await waitFor('a first result', () => lines(out) >= 1);
    await redis.stop();
    const atStop = lines(out);
    await redis.start();
    expect(await evalProc.exited, evalProc.stderr).toBe(0);
    const results = readResults(out);
    const expected = (await runEvalCount(tasks)) * 2;
    expect(atStop).toBeLessThan(expected);
    expect(results).toHaveLength(expected);
    expect(new Set(results.map((r) => `${r.task} ${r.preset}`)).size).toBe(expected);
    expect(results.every((r) => r.success)).toBe(true);
    expect(evalProc.stderr).toContain('is back');
  });

  it('a Redis that comes back empty gets the pending jobs queued again; each task still appears once', { timeout: TEST_MS }, async () => {
    const tasks = 'message_decoder/*';
    const out = path.join(home, 'wiped');
    worker(redis.url);
    const evalProc = ptc(['eval', 'm3tooleval', '--replay', '--presets', 'ptc,standard', '--tasks', tasks, '--queue', redis.url, '--out', out]);
    await waitFor('a first result', () => lines(out) >= 1);
    await redis.stop();
    const atStop = lines(out);
    // Its data gone, as a Redis without persistence restarts.
    for (const entry of fs.readdirSync(redis.dir)) fs.rmSync(path.join(redis.dir, entry), { recursive: true, force: true });
    await redis.start();
    expect(await evalProc.exited, evalProc.stderr).toBe(0);
    const expected = (await runEvalCount(tasks)) * 2;
    expect(atStop).toBeLessThan(expected);
    const results = readResults(out);
    expect(results).toHaveLength(expected);
    expect(new Set(results.map((r) => `${r.task} ${r.preset}`)).size).toBe(expected);
    expect(results.every((r) => r.success)).toBe(true);
  });

  it('--resume <dir> and --resume <run id> attach to a run left in the queue', { timeout: TEST_MS }, async () => {
    const first = path.join(home, 'left');
    const started = ptc(['eval', 'm3tooleval', '--replay', '--preset', 'ptc', '--tasks', 'travel_itinerary_planning/plan_trip_to_0', '--queue', redis.url, '--out', first]);
    await waitFor('the run id', () => /run (\S+): 1 job/.test(started.stderr));
    const runId = /run (\S+): 1 job/.exec(started.stderr)![1]!;
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(1);
    expect(started.stderr).toContain(`--resume ${first}`);
    // The directory remembers the queue: no --queue needed to attach again.
    const again = ptc(['eval', 'm3tooleval', '--resume', first]);
    await waitFor('the second attach', () => again.stderr.includes(`run ${runId}: 1 job`));
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(1);
    worker(redis.url);
    const second = path.join(home, 'attached');
    const resumed = ptc(['eval', 'm3tooleval', '--resume', runId, '--queue', redis.url, '--out', second]);
    expect(await resumed.exited, resumed.stderr).toBe(0);
    expect(readResults(second)).toMatchObject([{ task: 'travel_itinerary_planning/plan_trip_to_0', preset: 'ptc', success: true }]);
  });

  it('a worker without the model key fails the job naming the job and the variable; the eval reports it and writes no result', { timeout: TEST_MS }, async () => {
    const out = path.join(home, 'nokey');
    worker(redis.url);
    const evalProc = ptc(['eval', 'm3tooleval', '--model', 'deepseek:deepseek-chat', '--preset', 'ptc', '--tasks', DNA_TASK, '--queue', redis.url, '--out', out, '--json']);
    expect(await evalProc.exited).toBe(1);
    const printed = JSON.parse(evalProc.stdout) as { runId: string; failedJobs: { jobId: string; reason: string }[]; results: unknown[] };
    expect(printed.runId).toMatch(/^nokey-/);
    expect(printed.failedJobs).toEqual([{ jobId: `ptc~${DNA_TASK}~0`, reason: expect.stringContaining('DEEPSEEK_API_KEY is not set') }]);
    expect(printed.results).toEqual([]);
    expect(evalProc.stderr).toContain(`job ptc~${DNA_TASK}~0`);
    expect(evalProc.stderr).toContain('DEEPSEEK_API_KEY is not set');
    expect(evalProc.stderr).toContain(`--resume ${out}`);
    expect(evalProc.stderr).not.toMatch(STACK_LINE);
    expect(lines(out)).toBe(0);
  });

  it('a job for an unknown preset fails naming the job and the presets the worker knows; the worker goes on', { timeout: TEST_MS }, async () => {
    const runId = 'handmade-run';
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    const queue = new Queue(runId, { connection, prefix: QUEUE_PREFIX });
    const events = new QueueEvents(runId, { connection, prefix: QUEUE_PREFIX });
    try {
      await events.waitUntilReady();
      const proc = worker(redis.url, ['--run', runId]);
      const base = { v: 1, runId, suite: 'm3tooleval', task: 'travel_itinerary_planning/plan_trip_to_0', repeat: 0, model: { replay: true }, maxSteps: 50, sandbox: 'auto' };
      const bad = await queue.add('bad', { ...base, preset: 'nonesuch' }, { jobId: 'bad-job' });
      const good = await queue.add('good', { ...base, preset: 'ptc' }, { jobId: 'good-job' });
      await expect(bad.waitUntilFinished(events, WAIT_MS)).rejects.toThrow(/job bad-job of run handmade-run names the unknown preset "nonesuch"; this worker knows ptc, standard/);
      const value = (await good.waitUntilFinished(events, WAIT_MS)) as { result: TaskResult };
      expect(value.result).toMatchObject({ success: true });
      expect(proc.stderr).toContain('bad-job failed');
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('no Redis at the URL and a database it does not have are CONFIG errors naming the URL (exit 2, nothing written)', { timeout: TEST_MS }, async () => {
    const port = await freePort();
    const nowhere = ptc(['eval', 'm3tooleval', '--replay', '--queue', `redis://127.0.0.1:${port}`, '--out', path.join(home, 'nowhere')]);
    expect(await nowhere.exited).toBe(2);
    expect(nowhere.stderr).toContain(`Cannot reach Redis at redis://127.0.0.1:${port}`);
    expect(nowhere.stderr).toContain('ECONNREFUSED');
    expect(nowhere.stderr).toContain('--queue');
    expect(nowhere.stderr).not.toMatch(STACK_LINE);
    expect(fs.existsSync(path.join(home, 'nowhere'))).toBe(false);

    const noDb = worker(`${redis.url}/99`);
    expect(await noDb.exited).toBe(2);
    expect(noDb.stderr).toContain(`Redis at ${redis.url}/99 has no database 99`);
    expect(noDb.stderr).toContain('/0');
    expect(noDb.stderr).not.toMatch(STACK_LINE);
  });
});

async function runEvalCount(globs: string): Promise<number> {
  const { loadTasks, selectTasks } = await import('../../src/eval/m3tooleval/tasks.js');
  return selectTasks(loadTasks(), globs.split(',')).length;
}
