// `ptc sessions rm`: a session's log goes together with its spill directory (docs/sessions.md,
// "Spill") and a stale turn lock. A session whose turn is running, or that another process holds
// for a turn, is refused.

import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../errors.js';
import { summarizeSession, type ListSessionsOptions } from './list.js';
import { SESSION_FILE_EXTENSION, spillDirPath } from './paths.js';
import { findSession, readSession } from './reader.js';

export interface RemovedSession {
  readonly sessionId: string;
  readonly file: string;
  /** The spill directory, when there was one. */
  readonly spillDir: string | undefined;
}

/** Removes session `idOrPrefix` of `dir` (log, spill directory, lock); CONFIG when it is missing or in use. */
export function removeSession(dir: string, idOrPrefix: string, options: ListSessionsOptions = {}): RemovedSession {
  const file = findSession(dir, idOrPrefix);
  const sessionId = path.basename(file, SESSION_FILE_EXTENSION);
  const { events, warnings } = readSession(file);
  const summary = summarizeSession(sessionId, file, events, warnings, options);
  if (summary.outcome === 'running') {
    throw new ConfigError(`Session ${sessionId} is still running; wait for its turn to end (or stop it) before removing it.`);
  }
  const lock = `${file}.lock`;
  if (existsSync(lock) && summary.outcome !== 'crashed') {
    throw new ConfigError(`Session ${sessionId} is in use by another process (${lock}); wait for it to finish, or remove that file if no ptc process uses the session.`);
  }
  const spill = spillDirPath(path.dirname(file), sessionId);
  const hadSpill = existsSync(spill);
  // The spill directory first: a log without spill files reads fine, spill files without a log are litter.
  rmSync(spill, { recursive: true, force: true });
  rmSync(file, { force: true });
  rmSync(lock, { force: true });
  return { sessionId, file, spillDir: hadSpill ? spill : undefined };
}
