// Tunables of the `ptc` command's start-up (docs/benchmarks.md, "CLI start-up"). Their own file, not
// src/limits.ts: the entry reads them before anything else loads, and that file is a few hundred
// constants to compile.

/**
 * How much later than dist/cli/help.json a CLI module may have been written and the precomputed
 * `--help` still be used, in ms (src/cli/fast-start.ts): an install writes them all within moments;
 * a `tsc` run without the help step comes later than this.
 */
export const PRECOMPUTED_HELP_SLACK_MS = 60_000;
/**
 * The CLI's output cache (`ptc tools`, `ptc sdk`; src/cli/output-cache.ts): a file it depends on is
 * compared by its content up to this size in bytes, by size, mtime and inode past it.
 */
export const OUTPUT_CACHE_COMPARED_FILE_BYTES = 64 * 1024;
/** Paths one cached output may depend on; a command that touches more is not cached. */
export const OUTPUT_CACHE_MAX_DEPENDENCIES = 2_000;
/** Entries kept in the output cache directory; a miss that writes one removes the oldest past it. */
export const OUTPUT_CACHE_MAX_ENTRIES = 200;
/** A cached output file larger than this, in bytes, is neither written nor read. */
export const OUTPUT_CACHE_MAX_FILE_BYTES = 8 * 1024 * 1024;
/** A remembered `ptc exec` guess (src/cli/exec-speculation.ts) larger than this, in bytes, is not read. */
export const EXEC_PREDICTION_MAX_FILE_BYTES = 64 * 1024;
/** Remembered `ptc exec` guesses kept (one per command line and directory); a new one removes the oldest past it. */
export const EXEC_PREDICTION_MAX_ENTRIES = 200;
/** Remembered strips of `ptc exec` programs (src/cli/strip-cache.ts) kept; a new one removes the oldest past it. */
export const STRIP_CACHE_MAX_ENTRIES = 200;
/** A program whose source and strip together pass this many characters is not remembered. */
export const STRIP_CACHE_MAX_CHARS = 256 * 1024;
/** An exec server with no request for this long, in ms, stops (docs/exec-server.md). */
export const EXEC_SERVER_IDLE_MS = 30 * 60_000;
/** A client that sends no complete request within this many ms after connecting is dropped. */
export const EXEC_SERVER_REQUEST_MS = 5_000;
/** A runner serves at most this many command lines, then a fresh one takes over. */
export const RUNNER_MAX_RUNS = 500;
/** A runner whose resident memory passes this many bytes after a run serves no further one. */
export const RUNNER_MAX_RSS_BYTES = 512 * 1024 * 1024;
/** How long `ptc exec-server start` waits for the server it started to listen, in ms. */
export const EXEC_SERVER_START_MS = 20_000;
