// The default session store: one append-only JSONL file per session in the session directory
// (docs/sessions.md), the same files `ptc sessions` reads.

import path from 'node:path';
import { continueSession, latestSessionIn, startSession } from './continue-session.js';
import { listSessions } from './list.js';
import { SESSION_FILE_EXTENSION, spillDirPath } from './paths.js';
import { findSession, readSession } from './reader.js';
import type { SessionStore } from './session-store.js';
import { createSessionWriter } from './writer.js';

/** The store of session directory `dir` (created, private to the user, at the first write). */
export function jsonlSessionStore(dir: string): SessionStore {
  const root = path.resolve(dir);
  return {
    location: root,
    start: (options = {}) => {
      const writerOptions = { dir: root, ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}) };
      return options.lock === true ? startSession(writerOptions) : createSessionWriter(writerOptions);
    },
    continue: (idOrPrefix) => continueSession(root, idOrPrefix),
    latest: (cwd) => latestSessionIn(root, cwd),
    read: (idOrPrefix) => {
      const file = findSession(root, idOrPrefix);
      return { sessionId: path.basename(file, SESSION_FILE_EXTENSION), ...readSession(file) };
    },
    list: () => listSessions(root),
    spillDir: (sessionId) => spillDirPath(root, sessionId),
  };
}

