// Tunables of the web UI, `ptc ui` (docs/ui.md), unit in the name or the comment.

/** How often a followed session log's size is checked, in ms; a `ptc run` step takes far longer. */
export const LOG_FOLLOW_POLL_MS = 200;
/** Bodies of the UI's API requests (a message and a few fields), in bytes. */
export const MAX_UI_REQUEST_BODY_BYTES = 1024 * 1024;
/** A comment line on each event stream this often, in ms, keeps proxies and idle timers from closing it. */
export const UI_HEARTBEAT_MS = 15_000;
/** The shortest token `ptc ui` accepts for its API, in characters (a guessable one would open the workspace to any local page). */
export const MIN_UI_TOKEN_CHARS = 16;
