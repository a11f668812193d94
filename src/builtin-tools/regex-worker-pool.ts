// A small pool of worker threads that test a regular expression against the lines of texts, so that a
// pattern that backtracks for minutes runs where it can be stopped: terminating its worker interrupts
// the regex, and the host's event loop never runs it (docs/grep-regex.md).

import { Worker } from 'node:worker_threads';

import { ToolFailedError } from '../errors.js';
import { GREP_REGEX_IDLE_MS, GREP_REGEX_MAX_WORKERS, GREP_REGEX_WARM_WORKERS } from '../limits.js';

/**
 * The worker's program, plain JavaScript run with `eval: true`: it needs no TypeScript loader, so the
 * same string works from the sources under vitest and from dist/. It uses only a dynamic `import()`,
 * valid both as a script and as a module (a host started with `--input-type=module` evaluates it as one). Lines are split like `splitLines` in
 * read.ts (LF; one trailing CR dropped; a final newline does not start a line). The result is a flat
 * list of 1-based line numbers plus, per text, where its numbers end, both transferred, not copied.
 */
const WORKER_SOURCE = `
'use strict';
let cachedKey = '';
let cached = null;
import('node:worker_threads').then(({ parentPort }) => parentPort.on('message', (job) => {
  try {
    const key = job.flags + '/' + job.source;
    if (key !== cachedKey) {
      cached = new RegExp(job.source, job.flags);
      cachedKey = key;
    }
    const regex = cached;
    const found = [];
    const ends = new Uint32Array(job.texts.length);
    let left = job.maxMatches;
    for (let t = 0; t < job.texts.length; t++) {
      const text = job.texts[t];
      let start = 0;
      let line = 0;
      while (left > 0 && start < text.length) {
        let end = text.indexOf('\\n', start);
        if (end === -1) end = text.length;
        line++;
        const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
        if (regex.test(text.slice(start, stop))) {
          found.push(line);
          left--;
        }
        start = end + 1;
      }
      ends[t] = found.length;
    }
    const lines = Uint32Array.from(found);
    parentPort.postMessage({ id: job.id, lines, ends }, [lines.buffer, ends.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message ? error.message : error) });
  }
}));
`;

/** Line numbers are sent as Uint32; "no limit" is the largest of them. */
const UNLIMITED_MATCHES = 0xffff_ffff;

/** One request: test `regex` against every line of `texts`, stopping after `maxMatches` matches in total. */
export interface RegexJobRequest {
  readonly source: string;
  readonly flags: string;
  readonly texts: readonly string[];
  readonly maxMatches?: number;
}

/** A job handed to the pool; `cancel` stops it whether it waits in the queue or runs in a worker. */
export interface RegexJob {
  /** Per text, the 1-based numbers of its matching lines, in order. */
  readonly result: Promise<number[][]>;
  /** Rejects `result` with `reason` and, if a worker is running the job, terminates that worker. */
  cancel(reason: Error): void;
}

interface PendingJob {
  readonly id: number;
  readonly request: RegexJobRequest;
  readonly resolve: (value: number[][]) => void;
  readonly reject: (reason: Error) => void;
  slot: Slot | undefined;
  done: boolean;
}

interface Slot {
  readonly worker: Worker;
  job: PendingJob | undefined;
  /** False once the slot left the pool (terminated, crashed or retired): its events are ignored. */
  live: boolean;
  /** Retires a worker beyond the warm count once it has been idle for a while. */
  idleTimer: NodeJS.Timeout | undefined;
}

interface WorkerReply {
  readonly id: number;
  readonly lines?: Uint32Array;
  readonly ends?: Uint32Array;
  readonly error?: string;
}

/** The worker threads of one process. Idle workers are unref'd, so the pool never keeps a process alive. */
export class RegexWorkerPool {
  readonly #warm: number;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: PendingJob[] = [];
  #nextId = 1;

  constructor(options: { warmWorkers?: number; maxWorkers?: number; idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? GREP_REGEX_IDLE_MS;
    this.#max = Math.max(1, options.maxWorkers ?? GREP_REGEX_MAX_WORKERS);
    this.#warm = Math.min(this.#max, Math.max(0, options.warmWorkers ?? GREP_REGEX_WARM_WORKERS));
  }

  /** Workers alive now (busy or idle); for tests and the bench. */
  get workerCount(): number {
    return this.#slots.length;
  }

  run(request: RegexJobRequest): RegexJob {
    let resolve!: (value: number[][]) => void;
    let reject!: (reason: Error) => void;
    const result = new Promise<number[][]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const job: PendingJob = { id: this.#nextId++, request, resolve, reject, slot: undefined, done: false };
    this.#queue.push(job);
    this.#pump();
    return { result, cancel: (reason) => this.#cancel(job, reason) };
  }

  /** Terminates every worker and fails every job; the pool stays usable (new workers start on demand). */
  async close(): Promise<void> {
    const closed = new ToolFailedError('The regex worker pool was closed.');
    for (const job of [...this.#queue]) this.#cancel(job, closed);
    const workers = this.#slots.map((slot) => slot.worker);
    for (const slot of [...this.#slots]) {
      if (slot.job !== undefined) this.#cancel(slot.job, closed);
      else this.#retire(slot);
    }
    await Promise.all(workers.map((worker) => worker.terminate().catch(() => undefined)));
  }

  #cancel(job: PendingJob, reason: Error): void {
    if (job.done) return;
    job.done = true;
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) this.#queue.splice(queued, 1);
    const slot = job.slot;
    if (slot !== undefined) {
      // The only way to stop a regex mid-backtrack is to stop its thread; the slot is not reused.
      slot.job = undefined;
      this.#retire(slot);
    }
    job.reject(reason);
    this.#pump();
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((candidate) => candidate.job === undefined) ?? this.#spawn();
      if (slot === undefined) return;
      const job = this.#queue.shift() as PendingJob;
      clearTimeout(slot.idleTimer);
      slot.job = job;
      job.slot = slot;
      // Busy workers hold the process open so an awaited match settles even when nothing else is pending.
      slot.worker.ref();
      const { source, flags, texts, maxMatches } = job.request;
      const limit = maxMatches === undefined ? UNLIMITED_MATCHES : Math.max(0, Math.min(UNLIMITED_MATCHES, Math.floor(maxMatches)));
      slot.worker.postMessage({ id: job.id, source, flags, texts, maxMatches: limit });
    }
  }

  #spawn(): Slot | undefined {
    if (this.#slots.length >= this.#max) return undefined;
    let worker: Worker;
    try {
      // execArgv: the host's flags (loader hooks from --import, --input-type) are not the worker's concern.
      worker = new Worker(WORKER_SOURCE, { eval: true, name: 'ptc-grep-regex', execArgv: [] });
    } catch (error) {
      // With other workers alive the queue drains through them; with none, nothing ever would.
      if (this.#slots.length > 0) return undefined;
      const failure = new ToolFailedError(`Could not start a regex worker thread: ${describe(error)}`, { cause: error });
      for (const job of this.#queue.splice(0)) {
        job.done = true;
        job.reject(failure);
      }
      return undefined;
    }
    worker.unref();
    const slot: Slot = { worker, job: undefined, live: true, idleTimer: undefined };
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    worker.on('error', (error) => this.#onCrash(slot, `the regex worker failed: ${describe(error)}`));
    worker.on('exit', (code) => this.#onCrash(slot, `the regex worker exited (code ${code})`));
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!slot.live || job === undefined || reply.id !== job.id) return;
    slot.job = undefined;
    job.slot = undefined;
    job.done = true;
    slot.worker.unref();
    if (reply.error !== undefined || reply.lines === undefined || reply.ends === undefined) {
      job.reject(new ToolFailedError(`Matching the pattern failed: ${reply.error ?? 'malformed reply from the regex worker'}`));
    } else {
      job.resolve(unflatten(reply.lines, reply.ends));
    }
    this.#pump();
    if (slot.job === undefined && this.#slots.length > this.#warm) {
      // Not at once: a burst of short matches would otherwise start and end threads over and over.
      slot.idleTimer = setTimeout(() => {
        if (slot.job === undefined && this.#slots.length > this.#warm) this.#retire(slot);
      }, this.#idleMs);
      slot.idleTimer.unref();
    }
  }

  #onCrash(slot: Slot, detail: string): void {
    if (!slot.live) return;
    const job = slot.job;
    this.#retire(slot);
    if (job !== undefined && !job.done) {
      job.done = true;
      job.reject(new ToolFailedError(`Matching the pattern failed: ${detail}.`));
    }
    this.#pump();
  }

  #retire(slot: Slot): void {
    if (!slot.live) return;
    slot.live = false;
    clearTimeout(slot.idleTimer);
    const index = this.#slots.indexOf(slot);
    if (index !== -1) this.#slots.splice(index, 1);
    slot.worker.unref();
    slot.worker.terminate().catch(() => undefined);
  }
}

function unflatten(lines: Uint32Array, ends: Uint32Array): number[][] {
  const out: number[][] = [];
  let start = 0;
  for (const end of ends) {
    out.push(Array.from(lines.subarray(start, end)));
    start = end;
  }
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let shared: RegexWorkerPool | undefined;

/** The process-wide pool used by `createLineMatcher` unless it is given another. */
export function sharedRegexWorkerPool(): RegexWorkerPool {
  shared ??= new RegexWorkerPool();
  return shared;
}
