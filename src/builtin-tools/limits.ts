// Tunables of the built-in file, web_fetch, todo, plan_propose, goal_done and task tools
// (docs/file-tools.md, docs/grep-regex.md, docs/web-tools.md, docs/plan-mode.md), unit in the name or
// the comment. These tools read them, and what shows their results (plan mode, the chat's diffs);
// the two bash tools' are in shell-limits.ts, web_search's in web-search/limits.ts, and what lower
// layers share stays in src/limits.ts.

// Defined in src/limits.ts: the spill preview (src/tools/) names it when it says how to read on.
export { DEFAULT_READ_LIMIT_LINES } from '../limits.js';

// The file tools: read, glob, grep's output, the editors (docs/file-tools.md).
/** Tool results longer than this are cut by the built-in tools, with a note saying so. */
export const MAX_TOOL_OUTPUT_CHARS = 50_000;
/** Lines longer than this are shortened in `read` and `grep` output. */
export const MAX_LINE_CHARS = 2_000;
/** `read` refuses files larger than this; use offset/limit on a smaller slice or grep instead. */
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;
/** A file tool reports a change's old and new text (`tools/file-change`, the diffs of ptc acp) only when each is at most this many bytes. */
export const MAX_FILE_CHANGE_TEXT_BYTES = 1024 * 1024;
/** `glob` returns at most this many paths per call (its `limit`, and the default); `offset` pages on. */
export const MAX_GLOB_RESULTS = 1_000;
/** `grep` returns at most this many matching lines per call (its `limit`, and the default); `offset` pages on. */
export const MAX_GREP_MATCHES = 500;
/** A `.gitignore` larger than this is not read (its rules do not apply). */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;
/** `grep` skips files larger than this. */
export const MAX_GREP_FILE_BYTES = 5 * 1024 * 1024;
/** The file tools treat a file as binary when a NUL byte occurs in its first this-many bytes. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
/** A `glob` pattern may expand its `{a,b}` alternatives into at most this many patterns. */
export const MAX_GLOB_BRACE_EXPANSIONS = 256;
/** The file tools follow at most this many symbolic links while resolving one path (as the kernel's ELOOP bound). */
export const MAX_SYMLINK_HOPS = 40;
/** `str_replace_editor` shows this many unchanged lines before and after an edit in its snippet. */
export const EDITOR_SNIPPET_CONTEXT_LINES = 4;
/** `str_replace_editor view` of a directory lists at most this many entries. */
export const MAX_EDITOR_LISTING_ENTRIES = 1_000;
/** Previous file contents `str_replace_editor` keeps for `undo_edit`, all files together, in UTF-16 code units; the oldest go first. */
export const MAX_EDITOR_HISTORY_CHARS = 32 * 1024 * 1024;

// `grep` and its regex worker threads (docs/grep-regex.md).
/** Files `grep` hands a worker thread in one message to open, read and search (docs/grep-regex.md). */
export const GREP_BATCH_FILES = 256;
/** Batches of one `grep` call being searched at once, each in its own worker thread. */
export const GREP_BATCHES_IN_FLIGHT = 2;
/** `grep` deadline when the harness gives none: a pattern that backtracks this long ends as TIMEOUT. */
export const DEFAULT_GREP_TIMEOUT_MS = 30_000;
/** Regex worker threads kept alive (idle, unref'd) for `grep` between calls (docs/grep-regex.md). */
export const GREP_REGEX_WARM_WORKERS = 2;
/** Regex worker threads busy at once; further matches queue (their deadline keeps running while they wait). */
export const GREP_REGEX_MAX_WORKERS = 4;
/** A regex worker beyond GREP_REGEX_WARM_WORKERS ends after being idle this long. */
export const GREP_REGEX_IDLE_MS = 30_000;
/** The longest piece of a `grep` pattern echoed back in an error message, in characters. */
export const MAX_GREP_PATTERN_ECHO_CHARS = 200;

// `web_fetch` and its HTML converter.
/** `web_fetch` gives up on a URL (all redirects and the body included) after this long: TIMEOUT. */
export const WEB_FETCH_TIMEOUT_MS = 30_000;
/** `web_fetch` reads at most this many (decompressed) body bytes, then stops and marks the result truncated. */
export const MAX_WEB_FETCH_BYTES = 2 * 1024 * 1024;
/** `web_fetch` returns at most this many characters of converted text, marking the result truncated. */
export const MAX_WEB_FETCH_CHARS = 50_000;
/** `web_fetch` follows at most this many redirects from the URL it was given. */
export const MAX_WEB_FETCH_REDIRECTS = 5;
/** Characters of an error page that `web_fetch` quotes in the message of a non-2xx answer. */
export const WEB_FETCH_ERROR_EXCERPT_CHARS = 500;
/** Bytes at the top of an HTML body that `web_fetch` looks through for a `<meta charset>` (browsers look about as far). */
export const WEB_FETCH_CHARSET_SNIFF_BYTES = 2_048;
/** The HTML converter of `web_fetch` nests elements at most this deep; deeper ones join their ancestor. */
export const MAX_HTML_DEPTH = 256;
/** Lists, quotes and tables nested deeper than this are converted as plain lines (keeps conversion linear). */
export const MAX_HTML_STRUCTURE_NESTING = 12;

// `todo`, `plan_propose` (its contract here, its review in src/plan-mode/), `goal_done` and `task`.
/** `todo` accepts at most this many items in one list. */
export const MAX_TODO_ITEMS = 100;
/** One `todo` item's text, in characters. */
export const MAX_TODO_CONTENT_CHARS = 1_000;
/** Longest plan_propose `markdown`, in characters (docs/plan-mode.md). */
export const MAX_PLAN_MARKDOWN_CHARS = 20_000;
/** Longest comment a person sends a plan back with, in characters (docs/plan-mode.md). */
export const MAX_PLAN_COMMENT_CHARS = 4_000;
/** Characters of `goal_done` evidence kept in the log. */
export const MAX_GOAL_EVIDENCE_CHARS = 8_000;
/** A `task` call's `description` (the subagent's short label in logs and progress), in characters. */
export const MAX_TASK_DESCRIPTION_CHARS = 200;
