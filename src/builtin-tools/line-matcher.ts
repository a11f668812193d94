// Line matching for `grep` that cannot hang the host: the pattern is compiled on the host (compiling
// is safe) and tested in a worker thread under one deadline for the whole grep call; a pattern that
// backtracks past it ends as TIMEOUT, an abort as ABORTED, and the worker is terminated (docs/grep-regex.md).

import { AbortedError, HarnessError, InvalidArgsError } from '../errors.js';
import { DEFAULT_GREP_TIMEOUT_MS, MAX_GREP_PATTERN_ECHO_CHARS } from './limits.js';
import type { FileSearchReply, FileSearchRequest, RegexJob } from './regex-jobs.js';
import { sharedRegexWorkerPool, type RegexWorkerPool } from './regex-worker-pool.js';

/** The longest delay `setTimeout` honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LineMatcherOptions {
  /** A JavaScript regular expression source, no slashes or flags. */
  readonly pattern: string;
  readonly ignoreCase?: boolean;
  /** The deadline of the whole grep call, counted from `createLineMatcher`, shared by every match. */
  readonly timeoutMs?: number;
  /** Aborting it stops a running match (ABORTED) and fails every later one. */
  readonly signal?: AbortSignal;
  /** The pool to run in; the process-wide one by default. */
  readonly pool?: RegexWorkerPool;
}

export interface MatchOptions {
  /** Stop after this many matching lines in total (over all texts of one call). */
  readonly maxMatches?: number;
}

/** A batch of files for `searchFiles`: the request to the worker without the pattern. */
export type FileBatch = Omit<FileSearchRequest, 'source' | 'flags' | 'whole'>;

/** A running `searchFiles` batch. */
export interface FileSearch {
  readonly result: Promise<FileSearchReply>;
  /** Settles once no worker can touch the batch's descriptors any more (also after a TIMEOUT or ABORTED). */
  readonly released: Promise<void>;
}

export interface LineMatcher {
  /** 1-based numbers of the lines of `text` that match, in order. */
  match(text: string, options?: MatchOptions): Promise<number[]>;
  /** `match` for several texts in one round trip to the worker: one list of line numbers per text. */
  matchMany(texts: readonly string[], options?: MatchOptions): Promise<number[][]>;
  /** Opens, reads and searches a batch of files in a worker thread under the same deadline (docs/grep-regex.md). */
  searchFiles(batch: FileBatch): FileSearch;
  /** Stops any running match (it rejects with ABORTED) and refuses further ones. */
  close(): void;
}

/** The flags `grep` compiles its pattern with. */
export function grepRegexFlags(ignoreCase: boolean): string {
  return ignoreCase ? 'i' : '';
}

/** Compiles `pattern` as grep does, or throws INVALID_ARGS telling the model how to fix it. */
export function compileGrepPattern(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, grepRegexFlags(ignoreCase));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new InvalidArgsError(
      `pattern is not a valid JavaScript regular expression (${detail}). To match one of ( ) [ ] { } . * + ? ^ $ | \\ ` +
        'literally, put a backslash before it, e.g. "foo\\(" for "foo(".',
    );
  }
}

/**
 * True unless the pattern certainly cannot match across a line break or look past one: then a search
 * may run once over a whole text instead of once per line and find the same lines (docs/grep-regex.md).
 * Conservative: any escape that could stand for a line break (`\s`, `\n`, `\x0a`, `\u2028`, an octal
 * or a backreference), a negated class, a lookaround or a raw control character answers true.
 */
export function canSpanLines(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[++i] ?? '';
      if (/[sSDWnrcxuk0-9pP]/.test(next)) return true;
      continue;
    }
    // A raw line break, or a control character that could start a class range spanning one.
    if ((c ?? '') < ' ' || c === '\u2028' || c === '\u2029') return true;
    if (c === '[' && pattern[i + 1] === '^') return true;
    if (c === '(' && pattern[i + 1] === '?' && (pattern[i + 2] === '=' || pattern[i + 2] === '!' || (pattern[i + 2] === '<' && (pattern[i + 3] === '=' || pattern[i + 3] === '!')))) {
      return true;
    }
  }
  return false;
}

/** Validates the pattern now (throws INVALID_ARGS) and starts the deadline. */
export function createLineMatcher(options: LineMatcherOptions): LineMatcher {
  const ignoreCase = options.ignoreCase === true;
  compileGrepPattern(options.pattern, ignoreCase);
  const source = options.pattern;
  const flags = grepRegexFlags(ignoreCase);
  const timeoutMs = options.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  const deadline = performance.now() + timeoutMs;
  const pool = options.pool ?? sharedRegexWorkerPool();
  const signal = options.signal;
  const running = new Set<RegexJob<unknown>>();
  let closed = false;
  // Set when a deadline timer fired: Node's timer clock may run a fraction of a millisecond behind
  // performance.now(), and a later call must not squeeze in a match after the deadline was declared.
  let expired = false;

  const timedOut = () =>
    new HarnessError(
      'TIMEOUT',
      `Matching /${echo(options.pattern)}/ did not finish within grep's time limit of ${timeoutMs} ms: the pattern ` +
        'backtracked too long. Simplify it, e.g. avoid nested quantifiers such as (a+)+ or (.*)*, or narrow path or glob.',
    );
  const aborted = () => new AbortedError(closed ? 'The grep call ended before matching finished.' : 'grep was aborted.');

  const onAbort = () => {
    for (const job of [...running]) job.cancel(aborted());
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  /** Starts `start()`'s job under the call's deadline and signal; the job ends as TIMEOUT or ABORTED with them. */
  function guarded<T>(start: () => RegexJob<T>): { result: Promise<T>; released: Promise<void> } {
    if (closed || signal?.aborted === true) return { result: Promise.reject(aborted()), released: Promise.resolve() };
    const remainingMs = deadline - performance.now();
    if (expired || remainingMs <= 0) return { result: Promise.reject(timedOut()), released: Promise.resolve() };
    const job = start() as RegexJob<unknown>;
    running.add(job);
    // Node fires a timer longer than 2^31-1 ms at once; a deadline that far away is no deadline.
    const expire = () => {
      expired = true;
      job.cancel(timedOut());
    };
    const timer = remainingMs <= MAX_TIMER_MS ? setTimeout(expire, Math.ceil(remainingMs)) : undefined;
    const result = (job.result as Promise<T>).finally(() => {
      clearTimeout(timer);
      running.delete(job);
    });
    return { result, released: job.released };
  }

  async function matchMany(texts: readonly string[], matchOptions: MatchOptions = {}): Promise<number[][]> {
    if (texts.length === 0 && !closed && signal?.aborted !== true && !expired && deadline > performance.now()) return [];
    return guarded(() => pool.run({ source, flags, texts, maxMatches: matchOptions.maxMatches })).result;
  }

  const whole = !canSpanLines(source);
  return {
    matchMany,
    searchFiles: (batch) => guarded(() => pool.search({ ...batch, source, flags, whole })),
    async match(text, matchOptions) {
      const [lines] = await matchMany([text], matchOptions);
      return lines ?? [];
    },
    close() {
      if (closed) return;
      closed = true;
      signal?.removeEventListener('abort', onAbort);
      for (const job of [...running]) job.cancel(aborted());
    },
  };
}

function echo(pattern: string): string {
  return pattern.length <= MAX_GREP_PATTERN_ECHO_CHARS ? pattern : `${pattern.slice(0, MAX_GREP_PATTERN_ECHO_CHARS)}…`;
}
