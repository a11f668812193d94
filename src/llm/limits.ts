// Tunables of model resolution and model errors, unit in the name or the comment.

/** A provider's error detail quoted in a model error, in characters (longer is cut with …). */
export const MAX_DETAIL_CHARS = 300;
