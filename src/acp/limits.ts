// Tunables of the editor front-end, `ptc acp` (docs/acp.md), unit in the name or the comment.

/** A tool call's title preview in the editor (the first line of its command or pattern), in characters with the ellipsis. */
export const MAX_ACP_PREVIEW_CHARS = 120;
