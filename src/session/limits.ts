// Tunables of the session log (docs/sessions.md), unit in the name or the comment.

/** Schema issues named in the error for a malformed log line (the rest are not listed). */
export const MAX_ISSUES_SHOWN = 3;
