// Tunables of the benchmark, `ptc eval` (docs/eval.md), unit in the name or the comment; queue mode's are in
// src/eval/queue/limits.ts.

/** Exponents beyond this are refused by the benchmark's Python arithmetic rather than computed (Python would grind through them). */
export const MAX_INT_EXPONENT = 10_000n;
/** Model steps a task may take in `ptc eval` when `--max-steps` is not given: the paper's turn limit. */
export const DEFAULT_EVAL_MAX_STEPS = 10;
/** The same for `--replay`, which makes one model step per tool call in standard: the long browsing tasks need room. */
export const DEFAULT_REPLAY_MAX_STEPS = 200;
/** Characters of a failed run's error in summary.md's table of failed runs. */
export const SUMMARY_ERROR_CHARS = 120;
/** Characters of a failed run's answer in that table. */
export const SUMMARY_ANSWER_CHARS = 80;
