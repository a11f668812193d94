// What travels on the queue: the data of one job (everything a worker needs to run one task, no
// secret), its id (the idempotency key of the run's results), and its return value (the result and
// the session log). A worker validates job data as if the producer were hostile: a job it cannot
// run fails naming the job and the cause. docs/eval.md, "Queue mode".

import { z } from 'zod';

/** Bumped when the job shape changes; a worker refuses versions it does not know. */
export const JOB_VERSION = 1;

/** BullMQ's key prefix for every queue of ptc runs (keys `ptc:<run id>:…`). */
export const QUEUE_PREFIX = 'ptc';
/** The Redis set of run ids that want workers; `ptc worker` without `--run` serves each. */
export const RUNS_KEY = `${QUEUE_PREFIX}:runs`;
/** Channel on which `ptc eval` announces a run it queued, so idle workers start on it at once (they also poll RUNS_KEY). */
export const RUNS_CHANNEL = `${QUEUE_PREFIX}:runs:new`;
/** The run's settings (JSON), for `ptc eval --resume <run id>` from another machine. */
export function runKey(runId: string): string {
  return `${QUEUE_PREFIX}:run:${runId}`;
}

/** Run ids name BullMQ queues: no `:` (the key separator), nothing a shell would mangle. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const jobModelSchema = z.union([
  z.object({ replay: z.literal(true) }).strict(),
  z.object({ replay: z.literal(false), model: z.string().min(1).optional(), baseUrl: z.string().min(1).optional() }).strict(),
]);

export const jobDataSchema = z
  .object({
    v: z.number().int(),
    runId: z.string().regex(RUN_ID_PATTERN),
    suite: z.string(),
    task: z.string().min(1),
    /** A presentation name; the eval builds both presets in code (docs/eval.md, "Presets"). */
    preset: z.string().min(1),
    /** 0-based repeat of the same (task, preset, model). */
    repeat: z.number().int().min(0),
    /** Model settings without secrets: keys come from the worker's environment. */
    model: jobModelSchema,
    maxSteps: z.number().int().positive(),
    sandbox: z.enum(['required', 'auto', 'off']),
  })
  .strict();

export type JobData = z.infer<typeof jobDataSchema>;
export type JobModel = z.infer<typeof jobModelSchema>;

/** The job id: one per (task, preset, model, repeat) of a run; BullMQ ignores a second add of the same id. */
export function jobIdOf(data: Pick<JobData, 'task' | 'preset' | 'repeat'>): string {
  // The model is the run's (one per run), so it is not repeated in the id; `:` is not allowed in BullMQ ids.
  return `${data.preset}~${data.task}~${data.repeat}`.replace(/:/g, '_');
}

/** A session log carried back with the job: gzip, then base64. */
export interface InlineSession {
  readonly name: string;
  readonly gzipBase64: string;
}

/** What a worker returns for one job. `result` is a TaskResult; its sessionFile is `sessions/<name>` when `session` is set. */
export interface JobReturn {
  readonly v: number;
  readonly worker: string;
  readonly result: Record<string, unknown>;
  readonly session?: InlineSession;
}

const jobReturnSchema = z.object({
  v: z.number().int(),
  worker: z.string(),
  result: z.record(z.string(), z.unknown()),
  session: z.object({ name: z.string().regex(/^[A-Za-z0-9._-]+$/), gzipBase64: z.string() }).optional(),
});

/** Reads a job's return value (written by a worker, possibly of another version). */
export function parseJobReturn(value: unknown): JobReturn | undefined {
  const parsed = jobReturnSchema.safeParse(value);
  return parsed.success ? (parsed.data as JobReturn) : undefined;
}

/** Zod's issues as `path: message` lines, for the error that names a bad job. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; ');
}
