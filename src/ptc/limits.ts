// Tunables of PTC mode (docs/ptc-mode.md), unit in the name or the comment.

/** The bound on overlapping parallel sub-calls when none is configured (1 restores serial dispatch). */
export const DEFAULT_MAX_PARALLEL_SUB_CALLS = 10;
