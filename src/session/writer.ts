// Appends session events to `<dir>/<id>.jsonl`, one JSON line each, as they happen.
//
// Durability: `append` hands the whole line to the kernel with a synchronous write(2) on an O_APPEND
// descriptor before it returns, so a line that `append` returned survives any crash of this process
// (SIGKILL, OOM, an uncaught exception): the page cache outlives the process. `flush` adds fsync(2)
// (and, once, the directory's), which only a crash of the machine needs; the loop calls it at the
// end of each step and of the session. A write queue would save the caller ~microseconds per line
// but leave the newest lines in user space when the process dies, which is exactly when they matter.

import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../errors.js';
import { MAX_SESSION_LINE_BYTES, SESSION_ID_ATTEMPTS } from '../limits.js';
import type { SessionEvent, SessionEventInput } from './events.js';
import { fitLine } from './fit-line.js';
import { ensureSessionDir, newSessionId, sessionFilePath } from './paths.js';

export interface SessionWriterOptions {
  /** The session directory (see `resolveSessionDir`); created, private to the user, if missing. */
  readonly dir: string;
  /** Default: a fresh `newSessionId()`, another one tried if it is taken. A given id that is taken is a ConfigError. */
  readonly sessionId?: string;
  /** Default MAX_SESSION_LINE_BYTES; at least 1024. */
  readonly maxLineBytes?: number;
  /** The clock that stamps `ts`; default the system clock. */
  readonly now?: () => Date;
}

export interface SessionWriter {
  readonly sessionId: string;
  /** Absolute path of the log file. */
  readonly file: string;
  readonly closed: boolean;
  /**
   * Stamps `ts`, writes the event as one line and returns it as written: with `ts`, and shrunk (see
   * `truncated`) if it exceeded the line limit, so that whatever is rebuilt from returned events
   * matches what a reader of the file gets. Throws SessionLogClosedError after `close`, and the
   * file system's error if the write fails.
   */
  append(event: SessionEventInput): SessionEvent;
  /** fsync: everything appended so far survives a crash of the machine. A no-op once closed. */
  flush(): void;
  /** Flushes and closes the file. Idempotent. */
  close(): void;
}

/** `append` on a writer that was closed: a bug in the caller, never a user error. */
export class SessionLogClosedError extends Error {
  constructor(file: string) {
    super(`The session log ${file} is closed; no more events can be appended.`);
    this.name = 'SessionLogClosedError';
  }
}

/** Opens a new session log. The file is created exclusively: an existing log is never appended to or clobbered. */
export function createSessionWriter(options: SessionWriterOptions): SessionWriter {
  const maxLineBytes = options.maxLineBytes ?? MAX_SESSION_LINE_BYTES;
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1024) {
    throw new ConfigError(`maxLineBytes must be an integer of at least 1024, got ${String(maxLineBytes)}.`);
  }
  try {
    ensureSessionDir(options.dir);
  } catch (error) {
    throw new ConfigError(`Cannot create the session directory ${options.dir}: ${describe(error)}. Pass --session-dir <dir> or set PTC_HOME.`, { cause: error });
  }
  const attempts = options.sessionId === undefined ? SESSION_ID_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const sessionId = options.sessionId ?? newSessionId(options.now?.());
    const file = sessionFilePath(options.dir, sessionId);
    try {
      // 'ax': O_APPEND | O_CREAT | O_EXCL. Private: logs hold prompts and tool output.
      const fd = openSync(file, 'ax', 0o600);
      return new FileSessionWriter(fd, sessionId, file, maxLineBytes, options.now ?? (() => new Date()), false);
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') {
        if (attempt < attempts) continue;
        throw new ConfigError(`The session log ${file} already exists; a session id is never reused.`, { cause: error });
      }
      throw new ConfigError(`Cannot create the session log ${file}: ${describe(error)}. Pass --session-dir <dir> or set PTC_HOME.`, { cause: error });
    }
  }
}

/**
 * A writer that appends to the existing log `file` (a later turn: docs/sessions.md). The caller
 * holds the session's turn lock (session-lock.ts). A log whose last line is torn gets its next line
 * on a fresh one, so the fragment stays one bad line for the reader to skip.
 */
export function appendSessionWriter(file: string, sessionId: string, options: Omit<SessionWriterOptions, 'dir' | 'sessionId'> = {}): SessionWriter {
  const maxLineBytes = options.maxLineBytes ?? MAX_SESSION_LINE_BYTES;
  let fd: number;
  try {
    fd = openSync(file, 'a', 0o600);
  } catch (error) {
    throw new ConfigError(`Cannot open the session log ${file} to continue it: ${describe(error)}.`, { cause: error });
  }
  const size = fstatSync(fd).size;
  let torn = false;
  if (size > 0) {
    const last = Buffer.alloc(1);
    const read = openSync(file, 'r');
    try {
      readSync(read, last, 0, 1, size - 1);
    } finally {
      closeSync(read);
    }
    torn = last[0] !== 0x0a;
  }
  return new FileSessionWriter(fd, sessionId, file, maxLineBytes, options.now ?? (() => new Date()), torn);
}

// No parameter properties: the sources must stay erasable by a strip-only TypeScript loader.
class FileSessionWriter implements SessionWriter {
  readonly sessionId: string;
  readonly file: string;
  private fd: number | undefined;
  private readonly maxLineBytes: number;
  private readonly now: () => Date;
  private dirSynced = false;
  // A write that failed part-way left a partial line; the next line starts on a fresh one, so the
  // fragment stays a single bad line for the reader to skip instead of corrupting the next event.
  private midLine = false;

  constructor(fd: number, sessionId: string, file: string, maxLineBytes: number, now: () => Date, midLine: boolean) {
    this.fd = fd;
    this.midLine = midLine;
    this.sessionId = sessionId;
    this.file = file;
    this.maxLineBytes = maxLineBytes;
    this.now = now;
  }

  get closed(): boolean {
    return this.fd === undefined;
  }

  append(event: SessionEventInput): SessionEvent {
    const fd = this.fd;
    if (fd === undefined) throw new SessionLogClosedError(this.file);
    const record: Record<string, unknown> = { type: event.type, ts: this.now().toISOString() };
    for (const [key, value] of Object.entries(event)) if (key !== 'ts') record[key] = value;
    const fitted = fitLine(record, this.maxLineBytes);
    const text = `${this.midLine ? '\n' : ''}${fitted.line}\n`;
    const total = fitted.bytes + (this.midLine ? 1 : 0);
    let written = 0;
    try {
      // A regular file takes the whole line in one write(2) in practice; finish a rare short write
      // from a buffer (writing the string directly saves encoding it twice).
      written = writeSync(fd, text);
      if (written < total) {
        const bytes = Buffer.from(text, 'utf8');
        while (written < total) written += writeSync(fd, bytes, written, total - written);
      }
      this.midLine = false;
    } catch (error) {
      if (written > 0) this.midLine = true;
      throw error;
    }
    // The input plus `ts`; shrinking keeps every field's kind, so it is still the same event type.
    return fitted.record as unknown as SessionEvent;
  }

  flush(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    if (!this.dirSynced) {
      this.dirSynced = true;
      syncDirectoryOf(this.file);
    }
  }

  close(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    try {
      this.flush();
    } finally {
      this.fd = undefined;
      closeSync(fd);
    }
  }
}

/** Makes the new file's directory entry durable too. Best effort: some file systems refuse fsync on a directory. */
function syncDirectoryOf(file: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path.dirname(file), 'r');
    fsyncSync(fd);
  } catch {
    // Durability of the entry is then up to the file system's own journal.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
