// Tunables of the two `bash` tools (docs/minimal-tools.md), unit in the name or the comment. The
// bounds of `timeout_ms` are defined in src/limits.ts (a goal's check command is held to them too)
// and re-exported here, so the shell files read every bound of theirs from this one file.

export { MIN_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from '../limits.js';

/** `bash` keeps at most this many bytes of each of stdout and stderr (half from the start, half from the end). */
export const MAX_BASH_STREAM_BYTES = 20_000;
/** `bash` deadline when the call gives no `timeout_ms`. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/**
 * Memory a shell command's whole process tree may hold (both `bash` tools), in MiB. Larger than a
 * program's: a command may be a build or a test run (docs/minimal-tools.md, "Memory").
 */
export const DEFAULT_BASH_MEMORY_MB = 4096;
/** The smallest memory limit the shells accept, in MiB (below it bash itself may not start). */
export const MIN_BASH_MEMORY_MB = 16;
/**
 * After a `bash` command exits, how long its output pipes may stay open (held by a process that
 * escaped the kill, possible only without bwrap) before the tool stops reading them.
 */
export const BASH_PIPE_DRAIN_MS = 2_000;
/**
 * The persistent `bash` keeps reading (and dropping) the output pipes of at most this many earlier
 * calls whose background jobs still hold them; past that the oldest is closed and its writers get
 * EPIPE (docs/minimal-tools.md, "Private channels").
 */
export const MAX_BASH_LINGERING_OUTPUTS = 32;
/** How long the persistent `bash` waits for its private copy of bash to run `:` once, before each shell starts. */
export const SHELL_PROBE_TIMEOUT_MS = 10_000;
/** How often `bash` samples its command's descendants from /proc where no pid namespace holds them. */
export const PROCESS_TREE_SAMPLE_MS = 10;
