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
