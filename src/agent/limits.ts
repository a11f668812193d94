// Tunables of the agent (docs/sessions.md), unit in the name or the comment.

/** Model steps in one turn when the caller sets no `maxSteps` (`--max-steps`). */
export const DEFAULT_MAX_STEPS = 50;
/** A sub-call's result in a progress line, in characters. */
export const RESULT_PREVIEW_CHARS = 100;
