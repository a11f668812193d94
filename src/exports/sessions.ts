// `ptc-harness/sessions`: the session log (JSONL files): writing, reading, listing, continuing and
// removing sessions, and the spill store for large tool results (docs/sessions.md).

export * from '../session/index.js';
export { createSpillStore, createTempSpillStore, spillPreview, spillToolResult, type SpillRef, type SpillStore, type SpillStoreOptions, type SpillStream, type SpilledResult } from '../tools/index.js';
export { jsonlSessionStore } from '../session/jsonl-store.js';
export { jsonlSessions } from '../session/sessions-plugin.js';
export type { SessionStore, SessionsService, StartSessionOptions } from '../session/session-store.js';
