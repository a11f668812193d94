// The `sessions` service (docs/architecture.md, "Services"): where a run's session log goes and how a
// front-end finds it again — start one, continue one for another turn, read, list. The default row
// (`sessions`, src/session/sessions-plugin.ts) keeps one JSONL file per session in the session
// directory (src/session/jsonl-store.ts); a plugin may provide any other store. Rebuilding a request
// from a log is the agent's (src/agent/request.ts), from the events a store returns.

import type { ContinuedSession } from './continue-session.js';
import type { SessionSummary } from './list.js';
import type { SessionReadResult } from './reader.js';
import type { SessionWriter } from './writer.js';

export interface StartSessionOptions {
  /** Default: a fresh id. */
  readonly sessionId?: string;
  /**
   * Hold the session's turn lock until the writer closes (a front-end that keeps a session open
   * between turns: chat, ACP, the UI; docs/sessions.md, "One turn at a time").
   */
  readonly lock?: boolean;
}

/** The sessions of one place (a session directory, for the default store). */
export interface SessionStore {
  /** Where the sessions are, for messages: the directory, or the store's own description. */
  readonly location: string;
  /** A new session's log. */
  start(options?: StartSessionOptions): SessionWriter;
  /**
   * Session `idOrPrefix` opened for another turn: its events so far and a writer appending to it.
   * CONFIG, saying what to do, when it does not exist, is a subagent's or is in use.
   */
  continue(idOrPrefix: string): ContinuedSession;
  /** The id of the newest top-level session started in `cwd` (for `--continue`); CONFIG when there is none. */
  latest(cwd: string): string;
  /** The events of session `idOrPrefix` (and the reader's warnings). */
  read(idOrPrefix: string): SessionReadResult & { readonly sessionId: string };
  /** Every session, newest first. */
  list(): SessionSummary[];
  /** Where a session's whole over-long results go (docs/sessions.md, "Spill"); undefined: a temp directory. */
  spillDir?(sessionId: string): string | undefined;
}

/**
 * The `sessions` service: the store of a session directory (`--session-dir`, else
 * `$PTC_HOME/sessions`). Async, so the default loads its implementation only when a session is
 * opened, never for a command that only lists tools.
 */
export interface SessionsService {
  open(dir: string): Promise<SessionStore>;
}

declare module '../context/context.js' {
  interface Services {
    sessions: SessionsService;
  }
}
