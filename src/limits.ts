// Every limit of the harness in one place, unit in the name. Config may override them (validated at load).

/** Tool results longer than this are cut by the built-in tools, with a note saying so. */
export const MAX_TOOL_OUTPUT_CHARS = 50_000;
/** `read` returns at most this many lines when no limit is given. */
export const DEFAULT_READ_LIMIT_LINES = 2_000;
/** Lines longer than this are shortened in `read` and `grep` output. */
export const MAX_LINE_CHARS = 2_000;
/** `read` refuses files larger than this; use offset/limit on a smaller slice or grep instead. */
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;
/** `glob` returns at most this many paths. */
export const MAX_GLOB_RESULTS = 1_000;
/** `grep` returns at most this many matching lines. */
export const MAX_GREP_MATCHES = 500;
/** `grep` skips files larger than this. */
export const MAX_GREP_FILE_BYTES = 5 * 1024 * 1024;
/** The file tools treat a file as binary when a NUL byte occurs in its first this-many bytes. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
/** A `glob` pattern may expand its `{a,b}` alternatives into at most this many patterns. */
export const MAX_GLOB_BRACE_EXPANSIONS = 256;
