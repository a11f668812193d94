// Tunables of the Python runtime (docs/python-runtime.md), unit in the name or the comment.

/** The `python3` version probe, in ms (a first run on a cold disk can be slow). */
export const DETECT_TIMEOUT_MS = 15_000;
