// The append-only JSONL session log (README, "Session log"): paths, writer, reader, listing and display.

export type {
  GoalAbandonReason,
  GoalBudget,
  GoalBudgetLeft,
  LoggedToolCall,
  SessionEndReason,
  SessionEvent,
  SessionEventInput,
  SessionEventType,
  SessionLineMeta,
  TruncationNote,
  Usage,
} from './events.js';
export {
  assertSessionId,
  ensureSessionDir,
  listSessionFiles,
  newSessionId,
  resolveSessionDir,
  sessionFilePath,
  spillDirPath,
  SESSION_FILE_EXTENSION,
  type SessionDirOptions,
  type SessionFile,
} from './paths.js';
export { appendSessionWriter, createSessionWriter, SessionLogClosedError, type SessionWriter, type SessionWriterOptions } from './writer.js';
export { findSession, parseSessionLog, readSession, type SessionReadResult } from './reader.js';
export { SESSION_EVENT_TYPES, sessionEventSchema } from './schema.js';
export {
  formatSessionList,
  listSessions,
  summarizeSession,
  type ListSessionsOptions,
  type SessionOutcome,
  type SessionSummary,
} from './list.js';
export { formatSession, type FormatSessionOptions } from './format-session.js';
export { continueSession, latestSessionIn, startSession, type ContinuedSession } from './continue-session.js';
export { removeSession, type RemovedSession } from './remove.js';
