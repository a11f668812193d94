// A small pool of worker threads that test a regular expression against the lines of texts, so that a
// pattern that backtracks for minutes runs where it can be stopped: terminating its worker interrupts
// the regex, and the host's event loop never runs it (docs/grep-regex.md).

import { Worker } from 'node:worker_threads';

import { ToolFailedError } from '../errors.js';
import { GREP_REGEX_IDLE_MS, GREP_REGEX_MAX_WORKERS, GREP_REGEX_WARM_WORKERS } from './limits.js';
import { closeQuietly } from './safe-fs.js';

/**
 * The worker's program, plain JavaScript run with `eval: true`: it needs no TypeScript loader, so the
 * same string works from the sources under vitest and from dist/. It uses only a dynamic `import()`,
 * valid both as a script and as a module (a host started with `--input-type=module` evaluates it as one).
 * Lines are split like `splitLines` in read.ts (LF; one trailing CR dropped; a final newline does not
 * start a line). Two kinds of job:
 * - `lines`: texts in, a flat list of 1-based matching line numbers plus, per text, where its numbers
 *   end, both transferred, not copied.
 * - `files`: files to open and read here (docs/grep-regex.md): each by name through a directory
 *   descriptor the host holds (`/proc/self/fd/<dir>/<name>`, O_NOFOLLOW, like openat), or an already
 *   opened descriptor. The host owns every descriptor it sends and closes it only after this job
 *   ended (reply) or this thread is gone; a descriptor opened here is closed here, and while it is
 *   open its number sits in `current[0]` so the host can close it if the thread is terminated.
 *   A pattern that cannot match across a line (`whole`) runs once over the whole text with the `gm`
 *   flags, and each hit is checked against its own line with the plain pattern; others run per line.
 */
const WORKER_SOURCE = `
'use strict';
let cachedKey = '';
let cachedLine = null;
let cachedWhole = null;
let buffer = null;
const EMPTY = new Uint32Array(0);
function regexes(source, flags) {
  const key = flags + '/' + source;
  if (key !== cachedKey) {
    cachedLine = new RegExp(source, flags);
    cachedWhole = new RegExp(source, flags + 'gm');
    cachedKey = key;
  }
}
function searchText(text, whole, onMatch) {
  if (whole) {
    const re = cachedWhole;
    let pos = 0;
    let countedTo = 0;
    let lineNo = 1;
    while (pos < text.length) {
      re.lastIndex = pos;
      const m = re.exec(text);
      if (m === null) return;
      const s = m.index;
      const start = s === 0 ? 0 : text.lastIndexOf('\\n', s - 1) + 1;
      if (start >= text.length) return;
      let end = text.indexOf('\\n', start);
      if (end === -1) end = text.length;
      for (;;) {
        const nl = text.indexOf('\\n', countedTo);
        if (nl === -1 || nl >= start) break;
        lineNo++;
        countedTo = nl + 1;
      }
      const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      const line = text.slice(start, stop);
      if (cachedLine.test(line) && onMatch(lineNo, line) === false) return;
      pos = end + 1;
    }
    return;
  }
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\\n', start);
    if (end === -1) end = text.length;
    lineNo++;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const line = text.slice(start, stop);
    if (cachedLine.test(line) && onMatch(lineNo, line) === false) return;
    start = end + 1;
  }
}
Promise.all([import('node:worker_threads'), import('node:fs'), import('node:buffer')]).then(([threads, fs, buf]) => {
  const { parentPort, workerData } = threads;
  const current = workerData.current;
  const LEAF = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  function linesJob(job) {
    regexes(job.source, job.flags);
    const found = [];
    const ends = new Uint32Array(job.texts.length);
    let left = job.maxMatches;
    for (let t = 0; t < job.texts.length; t++) {
      if (left > 0) {
        searchText(job.texts[t], false, (lineNo) => {
          found.push(lineNo);
          return --left > 0;
        });
      }
      ends[t] = found.length;
    }
    const lines = Uint32Array.from(found);
    parentPort.postMessage({ id: job.id, lines, ends }, [lines.buffer, ends.buffer]);
  }
  function readFile(job, i) {
    let fd = job.fds[i];
    const own = fd < 0;
    if (own) {
      try {
        fd = fs.openSync('/proc/self/fd/' + job.dirFds[i] + '/' + job.names[i], LEAF);
      } catch {
        return -1;
      }
      current[0] = fd;
    }
    try {
      if (buffer === null || buffer.length < job.maxBytes + 1) buffer = Buffer.allocUnsafeSlow(job.maxBytes + 1);
      return fs.readSync(fd, buffer, 0, job.maxBytes + 1, 0);
    } catch {
      return -1;
    } finally {
      if (own) {
        // Cleared before the close: a thread stopped in between leaks the descriptor, never closes a reused number.
        current[0] = -1;
        fs.closeSync(fd);
      }
    }
  }
  function filesJob(job) {
    regexes(job.source, job.flags);
    const n = job.names.length;
    const status = new Uint8Array(n);
    const counts = new Uint32Array(n);
    const keptEnds = new Uint32Array(n);
    const keptLines = [];
    const texts = [];
    const lengths = [];
    let keep = job.keep;
    for (let i = 0; i < n; i++) {
      const length = readFile(job, i);
      if (length < 0) {
        status[i] = 2;
      } else if (length > job.maxBytes || buffer.subarray(0, Math.min(length, job.sniffBytes)).includes(0)) {
        status[i] = 1;
      } else {
        const view = buffer.subarray(0, length);
        let text = buf.isAscii(view) ? view.toString('latin1') : view.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        let count = 0;
        searchText(text, job.whole, (lineNo, line) => {
          count++;
          if (keep > 0) {
            keep--;
            keptLines.push(lineNo);
            texts.push(line.length > job.lineChars ? line.slice(0, job.lineChars) : line);
            lengths.push(line.length);
          }
        });
        counts[i] = count;
      }
      keptEnds[i] = keptLines.length;
    }
    const lines = Uint32Array.from(keptLines);
    const lineLengths = Uint32Array.from(lengths);
    parentPort.postMessage(
      { id: job.id, status, counts, keptEnds, lines, lengths: lineLengths, texts },
      [status.buffer, counts.buffer, keptEnds.buffer, lines.buffer, lineLengths.buffer],
    );
  }
  parentPort.on('message', (job) => {
    try {
      if (job.kind === 'files') filesJob(job);
      else linesJob(job);
    } catch (error) {
      parentPort.postMessage({ id: job.id, error: String(error && error.message ? error.message : error) });
    }
  });
});
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

/**
 * One batch of files to read and search in a worker. File `i` is `names[i]` in the directory `dirFds[i]`
 * when `fds[i]` is -1, else the already opened `fds[i]`. The caller keeps every descriptor open until
 * the job's `released` settles (docs/grep-regex.md).
 */
export interface FileSearchRequest {
  readonly source: string;
  readonly flags: string;
  /** True when no match can span a line: one pass over the whole text (see WORKER_SOURCE). */
  readonly whole: boolean;
  readonly dirFds: Int32Array;
  readonly fds: Int32Array;
  readonly names: readonly string[];
  /** Larger files are skipped, as are those with a NUL byte in their first `sniffBytes`. */
  readonly maxBytes: number;
  readonly sniffBytes: number;
  /** Matching lines whose text comes back, over the whole batch in file order; the rest are only counted. */
  readonly keep: number;
  /** Kept lines are cut to this many characters (their full length comes back too). */
  readonly lineChars: number;
}

/** What happened to one file of a FileSearchRequest. */
export const FileStatus = {
  Searched: 0,
  /** Binary or over `maxBytes`. */
  Skipped: 1,
  /** Gone, not a regular file, or unreadable. */
  Unreadable: 2,
} as const;

export interface FileSearchReply {
  /** Per file, a FileStatus. */
  readonly status: Uint8Array;
  /** Per file, its matching lines. */
  readonly counts: Uint32Array;
  /** Per file, where its kept lines end in `lines`/`texts`/`lengths`. */
  readonly keptEnds: Uint32Array;
  readonly lines: Uint32Array;
  readonly texts: readonly string[];
  readonly lengths: Uint32Array;
}

/** A job handed to the pool; `cancel` stops it whether it waits in the queue or runs in a worker. */
export interface RegexJob<T = number[][]> {
  readonly result: Promise<T>;
  /**
   * Settles once no worker thread can touch the job any more: at its reply, when it is cancelled while
   * queued, or when the thread that ran it has exited. Descriptors sent with the job may be closed then.
   */
  readonly released: Promise<void>;
  /** Rejects `result` with `reason` and, if a worker is running the job, terminates that worker. */
  cancel(reason: Error): void;
}

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
  /** The descriptor the worker has open right now, -1 for none (see WORKER_SOURCE). */
  readonly current: Int32Array;
  /** Settles when the thread has exited. */
  readonly exited: Promise<void>;
  job: PendingJob | undefined;
  /** False once the slot left the pool (terminated, crashed or retired): its events are ignored. */
  live: boolean;
  /** Retires a worker beyond the warm count once it has been idle for a while. */
  idleTimer: NodeJS.Timeout | undefined;
}

interface WorkerReply {
  readonly id: number;
  readonly error?: string;
  readonly lines?: Uint32Array;
  readonly ends?: Uint32Array;
  readonly status?: Uint8Array;
  readonly counts?: Uint32Array;
  readonly keptEnds?: Uint32Array;
  readonly lengths?: Uint32Array;
  readonly texts?: string[];
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
      worker = new Worker(WORKER_SOURCE, { eval: true, name: 'ptc-grep-regex', execArgv: [], workerData: { current } });
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
