// `ptc worker`: takes eval jobs from BullMQ queues in Redis and runs each with the same per-task
// function as a local `ptc eval` (src/eval/task-run.ts), so presets, sandbox and limits are the
// same. Without a run id it serves every run registered in Redis (one BullMQ Worker per run, each
// with the given concurrency). A job it cannot run (unknown task or preset, bad data, a missing
// key) fails at once naming the job; a job interrupted by shutdown goes back to the queue.
// docs/eval.md, "Queue mode".

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConfigError } from '../../errors.js';
import {
  QUEUE_CLOSE_TIMEOUT_MS,
  QUEUE_DISCOVER_INTERVAL_MS,
  QUEUE_LOCK_DURATION_MS,
  QUEUE_MAX_STALLED_COUNT,
  QUEUE_STALLED_INTERVAL_MS,
  QUEUE_WORKER_GRACE_MS,
} from './limits.js';
import { resolveModel, type ResolvedModel } from '../../llm/index.js';
import type { SandboxMode } from '../../ptc-runtime/types.js';
import { resolveSessionDir } from '../../session/index.js';
import { PRESENTATIONS, type Presentation } from '../m3tooleval/task-harness.js';
import { loadTasks, type M3Task } from '../m3tooleval/tasks.js';
import { openTaskRunner, type TaskRunner } from '../task-run.js';
import { settledWithin } from './bounded.js';
import { stricterSandbox } from './sandbox-floor.js';
import { connectRedis } from './connect.js';
import { describeIssues, JOB_VERSION, jobDataSchema, QUEUE_PREFIX, RUN_ID_PATTERN, RUNS_CHANNEL, RUNS_KEY, type JobData, type JobModel, type JobReturn } from './job.js';
import { connectionOptions, parseRedisUrl } from './redis-url.js';
import { placeSession } from './session-payload.js';

export interface QueueWorkerOptions {
  /** `redis://host:port[/db]`. */
  readonly queue: string;
  /** Jobs run at once per run served. */
  readonly concurrency?: number;
  /** Serve only this run; default every registered run. */
  readonly runId?: string;
  /** The loosest sandbox this worker allows (default auto): a job asking for less runs with this. */
  readonly sandbox?: SandboxMode;
  /** A shared directory for the session logs; default: back with the job (docs/eval.md). */
  readonly sessionDir?: string;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** Keys and PTC_HOME come from here. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** One line per event worth a log (started, finished, released, Redis lost). */
  readonly log?: (line: string) => void;
}

export interface QueueWorkerHandle {
  /** `host:pid`, as results name the worker that ran them. */
  readonly id: string;
  /** Stop taking jobs; wait up to `graceMs` for the running ones, then abort them and put them back. */
  stop(graceMs?: number): Promise<void>;
  /** Settles when the worker has stopped. */
  readonly done: Promise<WorkerTally>;
}

export interface WorkerTally {
  completed: number;
  failed: number;
  released: number;
}

export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const target = parseRedisUrl(options.queue);
  if (options.runId !== undefined && !RUN_ID_PATTERN.test(options.runId)) {
    throw new ConfigError(`--run "${options.runId}" is not a run id (letters, digits, . _ -); ptc eval --queue prints the run id it starts.`);
  }
  const registry: Redis = await connectRedis(target);
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const id = `${os.hostname()}:${process.pid}`;
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-worker-'));
  fs.mkdirSync(path.join(temp, 'workspace'));
  const keepDir = resolveSessionDir({ env: { ...env } });
  const tasks = new Map<string, M3Task>(loadTasks().map((t) => [t.name, t]));
  const runners = new Map<string, Promise<TaskRunner>>();
  const models = new Map<string, ResolvedModel>();
  const workers = new Map<string, Worker<unknown, JobReturn>>();
  const tally: WorkerTally = { completed: 0, failed: 0, released: 0 };
  let stopping = false;
  let lastError = '';

  const runnerFor = (data: JobData): Promise<TaskRunner> => {
    // Whoever can write to the Redis can queue jobs; a job never loosens the worker's own sandbox.
    const sandbox = stricterSandbox(data.sandbox, options.sandbox ?? 'auto');
    const key = `${data.model.replay}|${sandbox}`;
    let runner = runners.get(key);
    if (!runner) {
      runner = openTaskRunner({ dir: temp, cwd: path.join(temp, 'workspace'), replay: data.model.replay, ptc: true, sandbox });
      runners.set(key, runner);
      runner.catch(() => runners.delete(key));
    }
    return runner;
  };

  const liveModel = (model: Extract<JobModel, { replay: false }>): ResolvedModel => {
    const key = `${model.model ?? ''}|${model.baseUrl ?? ''}`;
    let resolved = models.get(key);
    if (!resolved) {
      resolved = resolveModel({ ...(model.model !== undefined ? { model: model.model } : {}), ...(model.baseUrl !== undefined ? { baseUrl: model.baseUrl } : {}), env: { ...env } });
      models.set(key, resolved);
    }
    return resolved;
  };

  const process_ = async (job: Job<unknown, JobReturn>, token: string | undefined, signal: AbortSignal | undefined): Promise<JobReturn> => {
    const name = `job ${job.id} of run ${job.queueName}`;
    const parsed = jobDataSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`${name} cannot run here: ${describeIssues(parsed.error)}. Queue it with ptc eval --queue of the same version as this worker.`);
    const data = parsed.data;
    if (data.v !== JOB_VERSION) throw new UnrecoverableError(`${name} has job version ${data.v}; this worker runs version ${JOB_VERSION}. Run workers of the version of the ptc eval that queued it.`);
    if (data.suite !== 'm3tooleval') throw new UnrecoverableError(`${name} is for the suite "${data.suite}"; this worker knows m3tooleval.`);
    if (!(PRESENTATIONS as readonly string[]).includes(data.preset)) {
      throw new UnrecoverableError(`${name} names the unknown preset "${data.preset}"; this worker knows ${PRESENTATIONS.join(', ')}.`);
    }
    const task = tasks.get(data.task);
    if (!task) throw new UnrecoverableError(`${name} names the unknown task "${data.task}"; this worker's M3ToolEval has no such task.`);
    let live: ResolvedModel | undefined;
    if (!data.model.replay) {
      try {
        live = liveModel(data.model);
      } catch (error) {
        throw new UnrecoverableError(`${name} cannot reach its model on worker ${id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    log(`ptc worker: ${job.queueName}/${job.id} started`);
    await job.updateProgress({ worker: id, phase: 'running' });
    const runner = await runnerFor(data);
    const result = await runner.run(task, data.preset as Presentation, { ...(live ? { live } : {}), maxSteps: data.maxSteps, ...(signal ? { signal } : {}) });
    if (signal?.aborted) {
      // Shutdown interrupted the run: it goes back to the queue for another worker; nothing is reported.
      fs.rmSync(path.join(temp, result.sessionFile), { force: true });
      if (token !== undefined) await job.moveToWait(token);
      tally.released++;
      log(`ptc worker: ${job.queueName}/${job.id} released (shutting down)`);
      throw new WaitingError();
    }
    const placed = placeSession(path.join(temp, result.sessionFile), { ...(options.sessionDir !== undefined ? { sharedDir: path.resolve(options.sessionDir) } : {}), keepDir });
    log(`ptc worker: ${job.queueName}/${job.id} ${result.success ? 'ok' : 'FAIL'} in ${result.wallMs} ms`);
    return { v: JOB_VERSION, worker: id, result: { ...result, sessionFile: placed.sessionFile }, ...(placed.session ? { session: placed.session } : {}) };
  };

  const serve = (runId: string): void => {
    if (workers.has(runId) || stopping) return;
    const worker = new Worker<unknown, JobReturn>(runId, process_, {
      connection: connectionOptions(target),
      prefix: QUEUE_PREFIX,
      concurrency: options.concurrency ?? 1,
      lockDuration: options.lockDurationMs ?? QUEUE_LOCK_DURATION_MS,
      stalledInterval: options.stalledIntervalMs ?? QUEUE_STALLED_INTERVAL_MS,
      maxStalledCount: QUEUE_MAX_STALLED_COUNT,
    });
    worker.on('completed', () => void tally.completed++);
    worker.on('failed', (job, error) => {
      if (error.name === 'WaitingError') return;
      tally.failed++;
      log(`ptc worker: ${runId}/${job?.id ?? '?'} failed: ${error.message}`);
    });
    worker.on('error', (error) => {
      // A Redis restart makes every connection report; one line per distinct cause is enough.
      if (error.message !== lastError) log(`ptc worker: Redis at ${target.display}: ${error.message} (waiting for it)`);
      lastError = error.message;
    });
    worker.on('ready', () => void (lastError = ''));
    workers.set(runId, worker);
    log(`ptc worker: serving run ${runId} from ${target.display}`);
  };

  const discover = async (): Promise<void> => {
    if (options.runId !== undefined) return serve(options.runId);
    const runs = await registry.smembers(RUNS_KEY);
    for (const runId of runs) if (RUN_ID_PATTERN.test(runId)) serve(runId);
    for (const [runId, worker] of workers) {
      if (!runs.includes(runId)) {
        workers.delete(runId);
        void worker.close();
      }
    }
  };
  await discover();
  const timer = setInterval(() => void discover().catch(() => {}), QUEUE_DISCOVER_INTERVAL_MS);
  // A new run is announced on a channel: an idle worker starts on it without waiting for the next poll.
  const announcements = registry.duplicate();
  announcements.on('error', () => {});
  if (options.runId === undefined) {
    await announcements.subscribe(RUNS_CHANNEL).catch(() => {});
    announcements.on('message', () => void discover().catch(() => {}));
  }
  log(`ptc worker ${id}: waiting for jobs at ${target.display}${options.runId !== undefined ? ` (run ${options.runId})` : ''}`);

  let resolveDone!: (tally: WorkerTally) => void;
  const done = new Promise<WorkerTally>((resolve) => (resolveDone = resolve));
  let stopped: Promise<void> | undefined;
  let cancel: (() => void) | undefined;
  const stop = (graceMs = QUEUE_WORKER_GRACE_MS): Promise<void> => {
    if (stopped) {
      // A second stop cuts the grace short.
      if (graceMs === 0) cancel?.();
      return stopped;
    }
    stopping = true;
    clearInterval(timer);
    stopped = (async () => {
      const all = [...workers.values()];
      cancel = () => {
        for (const worker of all) worker.cancelAllJobs('worker shutting down');
      };
      const grace = setTimeout(cancel, graceMs);
      await Promise.all(
        all.map(async (worker) => {
          const closing = worker.close();
          // Past the grace, the jobs are cancelled; past the close bound too (Redis away), the connections are dropped.
          if (!(await settledWithin(closing, graceMs + QUEUE_CLOSE_TIMEOUT_MS))) await worker.close(true).catch(() => {});
        }),
      );
      clearTimeout(grace);
      for (const runner of runners.values()) await (await runner).close().catch(() => {});
      announcements.disconnect();
      registry.disconnect();
      fs.rmSync(temp, { recursive: true, force: true });
      resolveDone(tally);
    })();
    return stopped;
  };
  return { id, stop, done };
}
