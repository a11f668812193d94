// The search loop behind `grep` (docs/grep-regex.md): the walk runs on the host and hands batches of
// files (directory descriptor + name, never a path) to worker threads that open, read and match them,
// a few batches at once; results are taken in walk order, so totals are exact and a page
// (offset/limit) is the same on every call over an unchanged tree. Every descriptor a batch refers to
// stays open until no worker can touch it any more.

import {
  MAX_LINE_CHARS,
  GREP_BATCH_FILES,
  GREP_BATCHES_IN_FLIGHT,
  MAX_GREP_FILE_BYTES,
  BINARY_SNIFF_BYTES,
} from './limits.js';
import { throwIfAborted } from './fs-errors.js';
import type { FileSearch, LineMatcher } from './line-matcher.js';
import { FileStatus } from './regex-jobs.js';
import { closeQuietly } from './safe-fs.js';
import type { WalkedFile } from './walk-files.js';

/** One matching line on the page. */
export interface SearchHit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

export interface SearchOptions {
  /** Runs of files in walk order (walk-files.ts), or a single opened file. */
  readonly files: AsyncIterable<readonly WalkedFile[]> | readonly SingleFile[];
  readonly matcher: LineMatcher;
  readonly signal: AbortSignal;
  readonly tool: string;
  /** Skip files for which this returns false (e.g. grep's `glob`). */
  readonly accept?: (file: WalkedFile) => boolean;
  /** How a file's path is shown in the hits. */
  readonly display: (absolute: string) => string;
  /** Matches before the page, counted over all files in walk order. */
  readonly offset: number;
  /** Matches on the page at most. */
  readonly limit: number;
  /** The page also ends before a hit that would take its path and text past this many characters. */
  readonly maxChars: number;
}

/** A file given directly (grep's `path` names a file): its descriptor stays the caller's. */
export interface SingleFile {
  readonly absolute: string;
  readonly fd: number;
}

export interface SearchResult {
  /** The page: matches `offset` to `offset + hits.length - 1`, in walk order. */
  readonly hits: SearchHit[];
  /** Matching lines in every searched file. */
  readonly totalMatches: number;
  readonly filesWithMatches: number;
  readonly filesSearched: number;
  /** Binary or over MAX_GREP_FILE_BYTES. */
  readonly filesSkipped: number;
}

interface Item {
  /** The path as the walk found it; shown through `display` only for a file with hits on the page. */
  readonly absolute: string;
  readonly dirFd: number;
  readonly name: string;
  /** -1 when the worker opens `name` through `dirFd`. */
  readonly fd: number;
  /** Undoes what holding the item took: releases the directory or closes an own descriptor. */
  readonly done: () => void;
}

interface Batch {
  readonly items: readonly Item[];
  readonly search: FileSearch;
}

/** Searches `files` and returns one page of hits with exact totals. */
export async function searchFiles(options: SearchOptions): Promise<SearchResult> {
  const { matcher, signal, tool, accept, display, offset, limit, maxChars } = options;
  const end = offset + limit;
  let totalMatches = 0;
  let filesWithMatches = 0;
  let filesSearched = 0;
  let filesSkipped = 0;
  let chars = 0;
  let pageFull = false;
  const hits: SearchHit[] = [];
  const inFlight: Batch[] = [];
  let pending: Item[] = [];

  const finish = (items: readonly Item[]): void => {
    for (const item of items) item.done();
  };

  /** Takes the oldest batch's result into the totals and the page (batches finish in any order, are taken in walk order). */
  const take = async (batch: Batch): Promise<void> => {
    let reply;
    try {
      reply = await batch.search.result;
    } finally {
      await batch.search.released;
      finish(batch.items);
    }
    let kept = 0;
    for (let i = 0; i < batch.items.length; i++) {
      const status = reply.status[i];
      if (status === FileStatus.Skipped) filesSkipped++;
      if (status !== FileStatus.Searched) continue;
      filesSearched++;
      const count = reply.counts[i] ?? 0;
      if (count > 0) filesWithMatches++;
      const keptEnd = reply.keptEnds[i] ?? kept;
      for (let k = 0; kept < keptEnd; k++, kept++) {
        const index = totalMatches + k;
        if (pageFull || index < offset || index >= end) continue;
        const text = shown(reply.texts[kept] ?? '', reply.lengths[kept] ?? 0);
        const hit: SearchHit = { path: display((batch.items[i] as Item).absolute), line: reply.lines[kept] ?? 0, text };
        const size = hit.path.length + hit.text.length + 16;
        if (hits.length > 0 && chars + size > maxChars) {
          // The page stays contiguous: later hits wait for the next offset.
          pageFull = true;
          continue;
        }
        hits.push(hit);
        chars += size;
      }
      totalMatches += count;
    }
  };

  const submit = async (): Promise<void> => {
    if (pending.length === 0) return;
    // The items stay in `pending` (released on failure) until their batch is in flight.
    while (inFlight.length >= GREP_BATCHES_IN_FLIGHT) await take(inFlight.shift() as Batch);
    const items = pending;
    pending = [];
    const search = matcher.searchFiles({
      dirFds: Int32Array.from(items, (item) => item.dirFd),
      fds: Int32Array.from(items, (item) => item.fd),
      names: items.map((item) => item.name),
      maxBytes: MAX_GREP_FILE_BYTES,
      sniffBytes: BINARY_SNIFF_BYTES,
      // A lower bound on the matches before this batch is what is taken so far.
      keep: Math.max(0, end - totalMatches),
      lineChars: MAX_LINE_CHARS,
    });
    // Rejections are awaited in take() or in the cleanup below; none may surface unhandled meanwhile.
    search.result.catch(() => undefined);
    inFlight.push({ items, search });
  };

  try {
    if (Array.isArray(options.files)) {
      for (const file of options.files as readonly SingleFile[]) {
        pending.push({ absolute: file.absolute, dirFd: -1, name: '', fd: file.fd, done: () => undefined });
      }
    } else {
      for await (const run of options.files as AsyncIterable<readonly WalkedFile[]>) {
        throwIfAborted(signal, tool);
        for (const file of run) {
          if (accept !== undefined && !accept(file)) continue;
          const item = hold(file);
          if (item !== undefined) pending.push(item);
          if (pending.length >= GREP_BATCH_FILES) await submit();
        }
      }
    }
    throwIfAborted(signal, tool);
    await submit();
    while (inFlight.length > 0) await take(inFlight.shift() as Batch);
    return { hits, totalMatches, filesWithMatches, filesSearched, filesSkipped };
  } finally {
    // On failure: stop what still runs, and let go of descriptors only once no worker can use them.
    if (inFlight.length > 0) matcher.close();
    for (const batch of inFlight.splice(0)) {
      await batch.search.result.catch(() => undefined);
      await batch.search.released;
      finish(batch.items);
    }
    finish(pending);
  }
}

/** What a batch needs to reach the file; undefined when a followed symlink no longer leads to one. */
function hold(file: WalkedFile): Item | undefined {
  if (file.linked) {
    // A symlink the walk followed: opened here, through the resolver, and closed after its batch.
    const fd = file.open();
    if (fd === undefined) return undefined;
    return { absolute: file.absolute, dirFd: -1, name: '', fd, done: () => closeQuietly(fd) };
  }
  file.dir.retain();
  return { absolute: file.absolute, dirFd: file.dir.fd, name: file.name, fd: -1, done: () => file.dir.release() };
}

/** A line as grep shows it: cut at MAX_LINE_CHARS with a note, as read's shortenLine does. */
function shown(text: string, length: number): string {
  return length <= MAX_LINE_CHARS ? text : `${text} [… ${length - MAX_LINE_CHARS} more characters cut]`;
}
