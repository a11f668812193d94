// `ptc-harness/eval`: the benchmark in the product (`ptc eval`, `ptc worker`; docs/eval.md): local
// and queued runs, their results and summaries, and the M3ToolEval suite.

export * from '../eval/runner.js';
export { runQueuedEval, readQueuedRunSettings, startQueueWorker } from '../eval/queue/lazy-queue.js';
export type { QueuedEvalOptions, QueuedEvalOutcome } from '../eval/queue/queued-eval.js';
export type { QueueWorkerHandle, QueueWorkerOptions, WorkerTally } from '../eval/queue/worker.js';
export { parseRedisUrl, type RedisTarget } from '../eval/queue/redis-url.js';
export { appendResult, readResults, RESULTS_FILE, type TaskResult } from '../eval/results.js';
export { aggregate, renderSummary, writeSummary, type Aggregate } from '../eval/summary.js';
export { renderChart } from '../eval/chart.js';
export { m3toolevalPlugin } from '../eval/m3tooleval/plugin.js';
export { loadTasks, selectTasks, DOMAINS, type Domain, type M3Task, type TaskTool } from '../eval/m3tooleval/tasks.js';
export { startReplayServer, ptcScript, standardScript, type ReplayScript, type ReplayServer } from '../eval/replay-model.js';
