// Tunables of the configuration files (docs/config.md), unit in the name or the comment.

/** A user or project config file larger than this is refused unread (it holds settings and rules, nothing more). */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;
/** How long saving a rule waits for another process's save of the same file (its lock), in ms. */
export const CONFIG_SAVE_LOCK_WAIT_MS = 5_000;
/** A save lock older than this is left over from a crashed process and is removed, in ms. */
export const CONFIG_SAVE_LOCK_STALE_MS = 30_000;
/** The smallest `contextWindow` a config file may set, in tokens (less could not hold a prompt and a reply). */
export const MIN_CONTEXT_WINDOW_TOKENS = 1_024;
