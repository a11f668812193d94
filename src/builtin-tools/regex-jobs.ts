// The jobs the regex worker pool takes and the replies its threads send (docs/grep-regex.md): lines of
// texts to test, or a batch of files to open, read and search; what `grep` and the line matcher hand
// src/builtin-tools/regex-worker-pool.ts and get back.

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
  /** True when no match can span a line: one pass over the whole text (see REGEX_WORKER_SOURCE). */
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

/** A worker's reply to one job, either kind (see REGEX_WORKER_SOURCE). */
export interface WorkerReply {
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
