// Tunables of what the terminal chat and its prompts show (docs/chat.md), unit in the name or the
// comment.

/** Lines of one unified diff shown in the chat or an approval prompt; the rest is counted in a note. */
export const MAX_CHAT_DIFF_LINES = 200;
/** Edit length (lines added plus removed) past which a diff is not computed (the diff library's `maxEditLength`); a note says so. */
export const MAX_DIFF_EDIT_LENGTH = 20_000;
/** Characters of a tool call's JSON arguments shown in an approval prompt. */
export const MAX_APPROVAL_ARGS_CHARS = 400;
