// `ptc eval <suite> --queue redis://…`: queues one BullMQ job per (task, preset, model, repeat)
// on a queue named after the run id, follows the queue's events (and, as a safety net for events
// lost while Redis restarts, the queue's finished jobs) and writes the same run directory as a
// local run. Each job's result is appended once: results.jsonl is keyed by job id, and a job id is
// collected only while it is pending. docs/eval.md, "Queue mode".

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { ConfigError } from '../../errors.js';
import { QUEUE_CLOSE_TIMEOUT_MS, QUEUE_FOLLOW_POLL_MS, QUEUE_JOB_ATTEMPTS, QUEUE_RETRY_BACKOFF_MS, MAX_QUEUE_RUN_NAME_CHARS } from './limits.js';
import type { SandboxMode } from '../../ptc-runtime/types.js';
import { loadTasks, selectTasks } from '../m3tooleval/tasks.js';
import { appendResult, readResults, resultKey, type TaskResult } from '../results.js';
import { orderedResults, RUN_FILE, settingsOf, type EvalOutcome, type EvalProgress, type EvalSettings } from '../run-dir.js';
import { writeSummary } from '../summary.js';
import { settledWithin } from './bounded.js';
import { connectRedis } from './connect.js';
import { JOB_VERSION, jobIdOf, parseJobReturn, QUEUE_PREFIX, RUN_ID_PATTERN, runKey, RUNS_CHANNEL, RUNS_KEY, type JobData, type JobReturn } from './job.js';
import { connectionOptions, parseRedisUrl } from './redis-url.js';
import { writeInlineSession } from './session-payload.js';

export interface QueuedEvalOptions extends EvalSettings {
  readonly out: string;
  /** `redis://host:port[/db]`. */
  readonly queueUrl: string;
  /** Attach to the run this directory (or this run id) already has in the queue. */
  readonly resume?: boolean;
  readonly runId?: string;
  readonly sandbox?: SandboxMode;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: EvalProgress) => void;
  /** Lines for the user: the run id, failed jobs, Redis lost and back. */
  readonly log?: (line: string) => void;
}

export interface QueuedEvalOutcome extends EvalOutcome {
  readonly runId: string;
  /** Jobs that failed for good (a worker could not run them), with the reason; no result line was written for them. */
  readonly failed: readonly { readonly jobId: string; readonly reason: string }[];
}

/** Reads the settings a queued run was started with, from Redis (for `--resume <run id>` on another machine). */
export async function readQueuedRunSettings(queueUrl: string, runId: string): Promise<EvalSettings> {
  const target = parseRedisUrl(queueUrl);
  const client = await connectRedis(target);
  try {
    const raw = await client.get(runKey(runId));
    if (raw === null) throw new ConfigError(`Redis at ${target.display} has no run "${runId}"; ptc eval --queue prints the run id it starts (or pass its run directory to --resume).`);
    return JSON.parse(raw) as EvalSettings;
  } finally {
    client.disconnect();
  }
}

export async function runQueuedEval(options: QueuedEvalOptions): Promise<QueuedEvalOutcome> {
  if (options.presets.length === 0) throw new ConfigError('Name at least one preset: --presets ptc,standard.');
  const log = options.log ?? (() => {});
  const tasks = selectTasks(loadTasks(), options.tasks);
  if (tasks.length === 0) throw new ConfigError(`No M3ToolEval task matches --tasks ${(options.tasks ?? []).join(',')}; names look like trade_calculator/* or web_browsing/price_of_*.`);
  // The keys live on the workers; here the model is only checked for form and named in the summary.
  const label = options.replay ? 'replay (reference solutions)' : await modelLabel(options);
  const target = parseRedisUrl(options.queueUrl);
  const registry = await connectRedis(target);

  const dir = path.resolve(options.out);
  fs.mkdirSync(path.join(dir, 'workspace'), { recursive: true });
  const runId = options.runId ?? newRunId(dir);
  if (!RUN_ID_PATTERN.test(runId)) throw new ConfigError(`"${runId}" is not a run id (letters, digits, . _ -).`);
  const settings = settingsOf(options, { url: target.display, runId });
  if (!options.resume || !fs.existsSync(path.join(dir, RUN_FILE))) fs.writeFileSync(path.join(dir, RUN_FILE), `${JSON.stringify(settings, null, 2)}\n`);

  const written = readResults(dir);
  const writtenKeys = new Set(written.map(resultKey));
  const all: { id: string; data: JobData }[] = [];
  for (const task of tasks) {
    for (const preset of options.presets) {
      const data: JobData = {
        v: JOB_VERSION,
        runId,
        suite: 'm3tooleval',
        task: task.name,
        preset,
        repeat: 0,
        model: options.replay ? { replay: true } : { replay: false, ...(options.model !== undefined ? { model: options.model } : {}), ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}) },
        maxSteps: options.maxSteps,
        sandbox: options.sandbox ?? 'auto',
      };
      all.push({ id: jobIdOf(data), data });
    }
  }
  const pending = new Map(all.filter((j) => !writtenKeys.has(resultKey(j.data))).map((j) => [j.id, j.data]));

  const connection = connectionOptions(target);
  const queue = new Queue<JobData, JobReturn>(runId, { connection, prefix: QUEUE_PREFIX });
  const events = new QueueEvents(runId, { connection, prefix: QUEUE_PREFIX });
  queue.on('error', () => {});
  events.on('error', () => {});

  const enqueue = async (): Promise<void> => {
    await registry.set(runKey(runId), JSON.stringify(settings));
    await registry.sadd(RUNS_KEY, runId);
    // Adding an id the queue already has is a no-op, so this also restores jobs a Redis without persistence lost.
    await queue.addBulk(
      [...pending].map(([jobId, data]) => ({
        name: data.task,
        data,
        opts: { jobId, attempts: QUEUE_JOB_ATTEMPTS, backoff: { type: 'exponential', delay: QUEUE_RETRY_BACKOFF_MS }, removeOnComplete: false, removeOnFail: false },
      })),
    );
    await registry.publish(RUNS_CHANNEL, runId);
  };
  await enqueue();
  if (options.resume) {
    // A resumed run gives its failed jobs another try (e.g. after the missing key was set on the workers).
    for (const jobId of await queue.getRanges(['failed'], 0, -1)) if (pending.has(jobId)) await (await queue.getJob(jobId))?.retry('failed');
  }
  log(`ptc eval: run ${runId}: ${pending.size} job(s) queued at ${target.display}; start workers with: ptc worker --queue ${target.display}`);

  const total = all.length;
  const startedAt = Date.now();
  const initial = total - pending.size;
  const taskNames = new Set(tasks.map((t) => t.name));
  let succeeded = written.filter((r) => r.success && options.presets.includes(r.preset) && taskNames.has(r.task)).length;
  const failed: { jobId: string; reason: string }[] = [];
  let done = initial;
  options.onProgress?.({ done, total, succeeded, startedAt, initial });

  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  if (pending.size === 0) finish();
  options.signal?.addEventListener('abort', () => finish(), { once: true });

  // One collection at a time, so an event and a sweep for the same job cannot both write it.
  let chain = Promise.resolve();
  const collect = (jobId: string): void => {
    chain = chain.then(() => collectOne(jobId)).catch(() => {});
  };
  const collectOne = async (jobId: string): Promise<void> => {
    if (!pending.has(jobId)) return;
    const job: Job<JobData, JobReturn> | undefined = await queue.getJob(jobId);
    if (!job) return;
    const state = await job.getState();
    if (state === 'completed') {
      const returned = parseJobReturn(job.returnvalue);
      if (!returned) {
        failed.push({ jobId, reason: 'its return value is not a ptc worker result (a worker of another version?)' });
        done++;
        // Removed, so that --resume queues it afresh instead of reading the same value again.
        await job.remove().catch(() => {});
        log(`ptc eval: job ${jobId} of run ${runId} returned no readable result (a worker of another version?); --resume ${dir} runs it again`);
      } else {
        if (returned.session) writeInlineSession(dir, returned.session);
        const result = { ...(returned.result as unknown as TaskResult), jobId, worker: returned.worker };
        appendResult(dir, result);
        if (result.success) succeeded++;
        done++;
        options.onProgress?.({ done, total, succeeded, startedAt, initial, last: result });
      }
    } else if (state === 'failed') {
      const reason = job.failedReason || 'no reason given';
      failed.push({ jobId, reason });
      done++;
      log(`ptc eval: job ${jobId} of run ${runId} failed: ${reason}`);
      options.onProgress?.({ done, total, succeeded, startedAt, initial });
    } else {
      return;
    }
    pending.delete(jobId);
    if (pending.size === 0) finish();
  };

  events.on('completed', ({ jobId }) => collect(jobId));
  events.on('failed', ({ jobId }) => collect(jobId));
  const sweep = async (): Promise<void> => {
    for (const jobId of await queue.getRanges(['completed', 'failed'], 0, -1)) if (pending.has(jobId)) collect(jobId);
  };
  let lost = false;
  let closing = false;
  const onLost = (cause: string): void => {
    if (!lost && !closing) log(`ptc eval: lost Redis at ${target.display} (${cause}); waiting for it, the run continues when it is back`);
    lost = true;
  };
  registry.on('error', (error: Error) => onLost(error.message));
  registry.on('close', () => onLost('connection closed'));
  registry.on('ready', () => {
    if (!lost) return;
    lost = false;
    log(`ptc eval: Redis at ${target.display} is back`);
    void enqueue().catch(() => {});
  });
  const poll = setInterval(() => void sweep().catch(() => {}), QUEUE_FOLLOW_POLL_MS);
  try {
    await events.waitUntilReady();
    await sweep();
    await finished;
    // Stopped while Redis is away, a collection in flight would wait for it forever.
    if (options.signal?.aborted) await settledWithin(chain, QUEUE_CLOSE_TIMEOUT_MS);
    else await chain;
  } finally {
    clearInterval(poll);
    await settledWithin(events.close(), QUEUE_CLOSE_TIMEOUT_MS);
  }

  closing = true;
  const aborted = options.signal?.aborted === true;
  if (!aborted && failed.length === 0 && pending.size === 0) {
    // Every result is in the run directory: the queue's copy is no longer needed.
    await queue.obliterate({ force: true }).catch(() => {});
    await registry.srem(RUNS_KEY, runId);
    await registry.del(runKey(runId));
  }
  if (!(await settledWithin(queue.close(), QUEUE_CLOSE_TIMEOUT_MS))) await queue.disconnect().catch(() => {});
  registry.disconnect();

  const results = orderedResults(dir, tasks);
  const summaryFile = writeSummary(dir, results, { ...settings, model: label });
  return { dir, results, ran: total - initial, summaryFile, runId, failed };
}

async function modelLabel(options: EvalSettings): Promise<string> {
  // Loaded only for live runs (the model clients are heavy); placeholder keys only let resolveModel
  // check the form here and never leave this function.
  const { resolveModel } = await import('../../llm/index.js');
  const placeholder = { DEEPSEEK_API_KEY: 'unused', OPENAI_API_KEY: 'unused', ANTHROPIC_API_KEY: 'unused' };
  return resolveModel({ ...(options.model !== undefined ? { model: options.model } : {}), ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}), env: placeholder }).label;
}

function newRunId(dir: string): string {
  const base = path.basename(dir).replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, MAX_QUEUE_RUN_NAME_CHARS) || 'run';
  return `${base}-${randomBytes(3).toString('hex')}`;
}
