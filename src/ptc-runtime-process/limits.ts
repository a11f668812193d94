// Tunables of the process runtime (docs/runtime-lifecycle.md), unit in the name or the comment.

/** The longest boots are held back for warm runs; after it, booting resumes even while they go on. */
export const BOOT_PAUSE_MAX_MS = 1000;
/** Replies written together at most: small, so a batch never delays the queued-bytes check much. */
export const REPLY_BATCH_BYTES = 64 * 1024;
/** A refill waits until no run took a child or settled for this long, so spawns land between bursts. */
export const POOL_REFILL_QUIET_MS = 30;
/**
 * While a policy still has POOL_RESERVE_LOW ready children, its refill waits for this longer pause:
 * runs that come less than about one boot apart spend the reserve instead of each booting beside
 * the next (docs/runtime-lifecycle.md, "The pool").
 */
export const POOL_REFILL_RESERVE_QUIET_MS = 100;
/** Ready children below which a refill waits only POOL_REFILL_QUIET_MS. */
export const POOL_RESERVE_LOW = 2;
/** Children of one policy booting at once (a boot is CPU-bound; more would only slow each other). */
export const POOL_MAX_STARTING = 2;
/** One read of the channel at most; a longer frame arrives in several reads. */
export const READ_BUFFER_BYTES = 64 * 1024;
/**
 * The longest a host waits without sleeping for a program's next frame after answering all its
 * calls (spin-wait.ts): a sequential program's next call comes 5-30 µs after its reply here.
 */
export const SPIN_WAIT_NS = 100_000n;
/** The longest the host's event loop is held by such waits in a row before it must turn. */
export const SPIN_STREAK_NS = 1_000_000n;
/** The most waits skipped after misses in a row (0, 1, 3, 7, ... per miss; a catch resets it). */
export const SPIN_BACKOFF_MAX = 64;
