// The queue calls of the library's eval entry, loading bullmq and ioredis (optional peer
// dependencies, docs/eval.md "Queue mode") only when called: importing `ptc-harness/eval` without
// them works, and a call without them is a CONFIG error that says what to install.

import type { EvalSettings } from '../run-dir.js';
import { loadQueueModule } from './queue-package.js';
import type { QueuedEvalOptions, QueuedEvalOutcome } from './queued-eval.js';
import type { QueueWorkerHandle, QueueWorkerOptions } from './worker.js';

/** Runs an eval through a BullMQ queue: see queued-eval.ts. */
export async function runQueuedEval(options: QueuedEvalOptions): Promise<QueuedEvalOutcome> {
  const queued = await loadQueueModule(() => import('./queued-eval.js'));
  return queued.runQueuedEval(options);
}

/** The settings of a run already in the queue at `queueUrl`: see queued-eval.ts. */
export async function readQueuedRunSettings(queueUrl: string, runId: string): Promise<EvalSettings> {
  const queued = await loadQueueModule(() => import('./queued-eval.js'));
  return queued.readQueuedRunSettings(queueUrl, runId);
}

/** Starts a worker that runs a queue's eval jobs: see worker.ts. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const worker = await loadQueueModule(() => import('./worker.js'));
  return worker.startQueueWorker(options);
}
