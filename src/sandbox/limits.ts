// Tunables of confined processes (docs/sandbox.md, docs/runtime-lifecycle.md), unit in the name or
// the comment. The two the code runtime's options also read (the /tmp size and the task bound) are
// defined in src/limits.ts and re-exported here, so the sandbox reads its bounds from this one file.

export { SANDBOX_TMP_MAX_BYTES, MAX_SANDBOX_TASKS } from '../limits.js';

/** Size of the private `/dev/shm` tmpfs of a bwrap sandbox. */
export const SANDBOX_SHM_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Directories of the writable roots a sandbox launch looks through for nested `.git`/`.ptc` entries to
 * bind read-only (docs/sandbox.md, "Protected paths"); past it, deeper repositories go unprotected.
 */
export const PROTECTED_SCAN_MAX_DIRS = 1_000;
/** How long one walk for nested protected entries of a root is reused by later launches, in ms. */
export const PROTECTED_SCAN_CACHE_MS = 5_000;
/** Processes remembered per launch for the final kill (descendants sampled from /proc). */
export const MAX_TRACKED_DESCENDANTS = 1_024;
/**
 * The highest fd number (a count, not bytes) at which a descriptor the host inherited without
 * close-on-exec can be covered with /dev/null in a confined spawn (docs/sandbox.md, "Inherited
 * descriptors"); a leak above it makes the launch fail rather than pass it on.
 */
export const MAX_COVERED_INHERITED_FD = 4_095;
/** How long the end of a launch waits for its killed processes to vanish (pid namespace teardown). */
export const PROCESS_TREE_VANISH_WAIT_MS = 2_000;
/**
 * Settling by freezing (docs/runtime-lifecycle.md, "Settling"): how long the freeze may take before the
 * settle falls back to killing and watching the namespace; a Node child freezes in 0.1-1 ms here.
 */
export const FREEZE_WAIT_MS = 50;
/** A frozen, killed sandbox is thawed (and so torn down) once no run has ended for this long. */
export const FROZEN_THAW_QUIET_MS = 150;
/** At most this many frozen sandboxes wait for that pause; beyond it the oldest is thawed at once. */
export const MAX_FROZEN_WAITING = 12;
/** A `.git` file is one short line; one longer than this many characters is not read as a gitfile. */
export const GITFILE_MAX_CHARS = 4_096;
/** How long a launch waits for its pid and its two sockets before it is given up (and falls back). */
export const SPAWN_REPLY_TIMEOUT_MS = 5_000;
/** The first line of each spawner socket, `<token> <role>`, in bytes; anything longer is not the helper's. */
export const MAX_SPAWNER_HEADER_BYTES = 128;
/** Spawner helpers that may die in one process; after that many the host spawns by itself for good. */
export const MAX_SPAWNER_STARTS = 3;
/** How often settling re-reads /proc while a killed tree dies (and waits for it to vanish), in ms: a timer tick, no busy wait. */
export const SETTLE_POLL_MS = 1;
/** Upper bound on one probe sandbox; a healthy one takes tens of milliseconds. */
export const SANDBOX_PROBE_TIMEOUT_MS = 10_000;
/** Characters of a failed probe sandbox's stderr kept for the message that says why bwrap is unusable. */
export const PROBE_STDERR_MAX_CHARS = 2_000;
/** The sandbox probe's cache file, in bytes; a larger one is not read (a miss). */
export const MAX_PROBE_CACHE_BYTES = 4096;
