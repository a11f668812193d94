// Reopening a finished session for another turn (`ptc run --resume`, `--continue`, `ptc chat`): one
// process at a time may append a turn, guarded by a lock file next to the log; a session whose
// latest turn is still running elsewhere is refused. docs/sessions.md.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ConfigError } from '../errors.js';
import type { SessionEvent } from './events.js';
import { isProcessAlive, listSessions, summarizeSession, type ListSessionsOptions } from './list.js';
import { SESSION_FILE_EXTENSION } from './paths.js';
import { findSession, readSession } from './reader.js';
import { appendSessionWriter, createSessionWriter, type SessionWriter, type SessionWriterOptions } from './writer.js';

export interface ContinuedSession {
  readonly sessionId: string;
  readonly file: string;
  /** Every event of the log so far (the reader's torn or invalid lines skipped). */
  readonly events: readonly SessionEvent[];
  /** Appends to the same file; close() also releases the turn lock. */
  readonly writer: SessionWriter;
}

/**
 * Opens session `idOrPrefix` (an id, a unique prefix or a path) in `dir` for a new turn. Fails with
 * CONFIG, saying what to do, when the session does not exist, is a subagent's, or is in use.
 */
export function continueSession(dir: string, idOrPrefix: string, options: ListSessionsOptions = {}): ContinuedSession {
  const file = findSession(dir, idOrPrefix);
  const sessionId = path.basename(file, SESSION_FILE_EXTENSION);
  const release = acquireTurnLock(file, sessionId, options);
  try {
    const { events, warnings } = readSession(file);
    const summary = summarizeSession(sessionId, file, events, warnings, options);
    if (!events.some((e) => e.type === 'session/start')) {
      throw new ConfigError(`The session log ${file} has no session/start line, so it cannot be continued.`);
    }
    if (summary.parentSessionId !== undefined) {
      throw new ConfigError(`Session ${sessionId} is a subagent of session ${summary.parentSessionId}; continue that one instead.`);
    }
    if (summary.outcome === 'running') {
      throw new ConfigError(`Session ${sessionId} is still running in another process; wait for its turn to end (ptc sessions list shows it as running).`);
    }
    const writer = appendSessionWriter(file, sessionId);
    return { sessionId, file, events, writer: releasingOnClose(writer, release) };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * Starts a new session log that holds its turn lock until close(), like a continued one: a front-end
 * that keeps a session open between turns (chat, ACP, the UI) is never appended to by another
 * process meanwhile (docs/sessions.md, "One turn at a time").
 */
export function startSession(options: SessionWriterOptions, lockOptions: ListSessionsOptions = {}): SessionWriter {
  const writer = createSessionWriter(options);
  let release: () => void;
  try {
    release = acquireTurnLock(writer.file, writer.sessionId, lockOptions);
  } catch (error) {
    writer.close();
    throw error;
  }
  return releasingOnClose(writer, release);
}

/** The newest top-level session whose workspace is `cwd` (for `--continue`); CONFIG when there is none. */
export function latestSessionIn(dir: string, cwd: string, options: ListSessionsOptions = {}): string {
  const candidates = listSessions(dir, options).filter((s) => s.cwd === cwd && s.parentSessionId === undefined);
  const byLastEvent = (s: (typeof candidates)[number]): number => Date.parse(s.lastEventAt ?? s.startedAt ?? '') || 0;
  candidates.sort((a, b) => byLastEvent(b) - byLastEvent(a));
  const latest = candidates[0];
  if (latest === undefined) {
    throw new ConfigError(`No session in ${dir} was started in ${cwd}; start one with \`ptc run "<task>"\` or pick one from \`ptc sessions list\` for --resume.`);
  }
  return latest.id;
}

/** The writer, with a close() that also releases the turn lock. */
function releasingOnClose(writer: SessionWriter, release: () => void): SessionWriter {
  return {
    get sessionId() {
      return writer.sessionId;
    },
    get file() {
      return writer.file;
    },
    get closed() {
      return writer.closed;
    },
    append: (event) => writer.append(event),
    flush: () => writer.flush(),
    close: () => {
      try {
        writer.close();
      } finally {
        release();
      }
    },
  };
}

/** Takes `<file>.lock` (exclusive create); a lock left by a dead process of this host is taken over. */
function acquireTurnLock(file: string, sessionId: string, options: ListSessionsOptions): () => void {
  const lock = `${file}.lock`;
  const host = options.hostname ?? os.hostname();
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) {
        throw new ConfigError(`Cannot lock session ${sessionId} (${lock}): ${error instanceof Error ? error.message : String(error)}.`);
      }
      const owner = readLockOwner(lock);
      const stale = attempt === 0 && owner !== undefined && owner.host === host && !(options.isProcessAlive ?? isProcessAlive)(owner.pid);
      if (!stale) {
        const who = owner === undefined ? 'another process' : `process ${owner.pid} on ${owner.host}`;
        throw new ConfigError(`Session ${sessionId} is in use by ${who}; wait for it to finish, or remove ${lock} if no ptc process uses the session.`);
      }
      try {
        unlinkSync(lock);
      } catch {
        // Another process took it over first; the next attempt says so.
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, host }));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      try {
        unlinkSync(lock);
      } catch {
        // Already gone: nothing to release.
      }
    };
  }
  throw new ConfigError(`Session ${sessionId} is locked (${lock}); remove that file if no ptc process uses the session.`);
}

function readLockOwner(lock: string): { pid: number; host: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(lock, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'pid' in parsed && 'host' in parsed) {
      const { pid, host } = parsed as { pid: unknown; host: unknown };
      if (typeof pid === 'number' && Number.isInteger(pid) && pid > 0 && typeof host === 'string') return { pid, host };
    }
  } catch {
    // Unreadable or half-written: treated as held by an unknown owner.
  }
  return undefined;
}
