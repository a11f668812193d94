// A small pool of worker threads that test a regular expression against the lines of texts, so that a
// pattern that backtracks for minutes runs where it can be stopped: terminating its worker interrupts
// the regex, and the host's event loop never runs it (docs/grep-regex.md). The threads' program is
// regex-worker-source.ts, the jobs and replies regex-jobs.ts.

import { Worker } from 'node:worker_threads';

import { ToolFailedError } from '../errors.js';
import { GREP_REGEX_IDLE_MS, GREP_REGEX_MAX_WORKERS, GREP_REGEX_WARM_WORKERS } from './limits.js';
import type { FileSearchReply, FileSearchRequest, RegexJob, RegexJobRequest, WorkerReply } from './regex-jobs.js';
import { REGEX_WORKER_SOURCE } from './regex-worker-source.js';
import { closeQuietly } from './safe-fs.js';

/** Line numbers are sent as Uint32; "no limit" is the largest of them. */
const UNLIMITED_MATCHES = 0xffff_ffff;

interface PendingJob {
  readonly id: number;
  readonly message: Record<string, unknown>;
  readonly decode: (reply: WorkerReply) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: Error) => void;
  readonly release: () => void;
  slot: Slot | undefined;
  done: boolean;
}

interface Slot {
  readonly worker: Worker;
  /** The descriptor the worker has open right now, -1 for none (see REGEX_WORKER_SOURCE). */
  readonly current: Int32Array;
  /** Settles when the thread has exited. */
  readonly exited: Promise<void>;
  job: PendingJob | undefined;
  /** False once the slot left the pool (terminated, crashed or retired): its events are ignored. */
  live: boolean;
  /** Retires a worker beyond the warm count once it has been idle for a while. */
  idleTimer: NodeJS.Timeout | undefined;
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
    const { source, flags, texts, maxMatches } = request;
    const limit = maxMatches === undefined ? UNLIMITED_MATCHES : Math.max(0, Math.min(UNLIMITED_MATCHES, Math.floor(maxMatches)));
    return this.#submit({ kind: 'lines', source, flags, texts, maxMatches: limit }, (reply) => {
      if (reply.lines === undefined || reply.ends === undefined) throw new Error('malformed reply from the regex worker');
      return unflatten(reply.lines, reply.ends);
    });
  }

  /** Reads and searches a batch of files in a worker (docs/grep-regex.md). */
  search(request: FileSearchRequest): RegexJob<FileSearchReply> {
    return this.#submit({ kind: 'files', ...request }, (reply) => {
      const { status, counts, keptEnds, lines, lengths, texts } = reply;
      if (
        status === undefined ||
        counts === undefined ||
        keptEnds === undefined ||
        lines === undefined ||
        lengths === undefined ||
        texts === undefined ||
        status.length !== request.names.length
      ) {
        throw new Error('malformed reply from the regex worker');
      }
      return { status, counts, keptEnds, lines, lengths, texts };
    });
  }

  #submit<T>(message: Record<string, unknown>, decode: (reply: WorkerReply) => T): RegexJob<T> {
    let resolve!: (value: T) => void;
    let reject!: (reason: Error) => void;
    const result = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    let release!: () => void;
    const released = new Promise<void>((res) => {
      release = res;
    });
    const job: PendingJob = {
      id: this.#nextId++,
      message,
      decode,
      resolve: resolve as (value: unknown) => void,
      reject,
      release,
      slot: undefined,
      done: false,
    };
    this.#queue.push(job);
    this.#pump();
    return { result, released, cancel: (reason) => this.#cancel(job, reason) };
  }

  /** Terminates every worker and fails every job; the pool stays usable (new workers start on demand). */
  async close(): Promise<void> {
    const closed = new ToolFailedError('The regex worker pool was closed.');
    for (const job of [...this.#queue]) this.#cancel(job, closed);
    const exits = this.#slots.map((slot) => slot.exited);
    for (const slot of [...this.#slots]) {
      if (slot.job !== undefined) this.#cancel(slot.job, closed);
      else this.#retire(slot);
    }
    await Promise.all(exits);
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
      void slot.exited.then(job.release);
    } else {
      job.release();
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
      slot.worker.postMessage({ id: job.id, ...job.message });
    }
  }

  #spawn(): Slot | undefined {
    if (this.#slots.length >= this.#max) return undefined;
    let worker: Worker;
    const current = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    try {
      // execArgv: the host's flags (loader hooks from --import, --input-type) are not the worker's concern.
      worker = new Worker(REGEX_WORKER_SOURCE, { eval: true, name: 'ptc-grep-regex', execArgv: [], workerData: { current } });
    } catch (error) {
      // With other workers alive the queue drains through them; with none, nothing ever would.
      if (this.#slots.length > 0) return undefined;
      const failure = new ToolFailedError(`Could not start a regex worker thread: ${describe(error)}`, { cause: error });
      for (const job of this.#queue.splice(0)) {
        job.done = true;
        job.release();
        job.reject(failure);
      }
      return undefined;
    }
    worker.unref();
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        // A thread stopped while it held a descriptor it opened: nothing can use that number now.
        const fd = Atomics.load(current, 0);
        if (fd >= 0) {
          Atomics.store(current, 0, -1);
          closeQuietly(fd);
        }
        resolve();
      });
    });
    const slot: Slot = { worker, current, exited, job: undefined, live: true, idleTimer: undefined };
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
    job.release();
    slot.worker.unref();
    if (reply.error !== undefined) {
      job.reject(new ToolFailedError(`Matching the pattern failed: ${reply.error}`));
    } else {
      try {
        job.resolve(job.decode(reply));
      } catch (error) {
        job.reject(new ToolFailedError(`Matching the pattern failed: ${describe(error)}`));
      }
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
      void slot.exited.then(job.release);
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
