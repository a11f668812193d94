// Tunables of queue mode, `ptc eval --queue` and `ptc worker` on BullMQ (docs/eval.md, "Queue mode"),
// unit in the name or the comment.

/** Time to reach Redis and select the database before `--queue` fails with CONFIG naming the URL. */
export const QUEUE_CONNECT_TIMEOUT_MS = 5_000;
/** A worker's lock on a job; renewed every half of it while the job runs. A worker killed mid-task loses its job after this. */
export const QUEUE_LOCK_DURATION_MS = 30_000;
/** How often each worker looks for jobs whose lock expired (stalled) and puts them back in the queue. */
export const QUEUE_STALLED_INTERVAL_MS = 15_000;
/** Times one job may stall (its worker died) before it is failed instead of run again. */
export const QUEUE_MAX_STALLED_COUNT = 3;
/** Attempts of a job whose run threw (an infrastructure failure, not a failed task); unknown tasks and presets fail at once. */
export const QUEUE_JOB_ATTEMPTS = 3;
/** Delay before such a job's next attempt, in ms (doubled each time). */
export const QUEUE_RETRY_BACKOFF_MS = 1_000;
/** On SIGTERM a worker waits this long for its running jobs, then aborts them and puts them back in the queue. */
export const QUEUE_WORKER_GRACE_MS = 60_000;
/** A close of the queue's connections that has not finished after this (Redis away) is forced. */
export const QUEUE_CLOSE_TIMEOUT_MS = 10_000;
/** How often a worker without `--run` looks for new runs in Redis. */
export const QUEUE_DISCOVER_INTERVAL_MS = 2_000;
/** How often `ptc eval --queue` checks the job counts besides the queue's events (events lost during a Redis restart). */
export const QUEUE_FOLLOW_POLL_MS = 1_000;
/** A session log travels back in the job's return value when it compresses to at most this many bytes; a larger one stays on the worker. */
export const QUEUE_MAX_INLINE_SESSION_BYTES = 1024 * 1024;
/** Characters of the run directory's name kept at the start of a queued run's id (a random suffix follows). */
export const MAX_QUEUE_RUN_NAME_CHARS = 100;
