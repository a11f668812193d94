// Tunables of `web_search` (docs/web-search.md), unit in the name or the comment.

/** `web_search` gives up on one backend request (answer and body) after this long: TIMEOUT. */
export const WEB_SEARCH_TIMEOUT_MS = 15_000;
/** A `web_search` query, in characters. */
export const MAX_WEB_SEARCH_QUERY_CHARS = 1_000;
/** `web_search` returns at most this many results, whatever `count` asks (Brave's API caps `count` at 20 too). */
export const MAX_WEB_SEARCH_RESULTS = 20;
/** `web_search` returns this many results when `count` is not given. */
export const DEFAULT_WEB_SEARCH_RESULTS = 8;
/** One result's snippet, in characters; longer ones are cut and end with an ellipsis. */
export const MAX_WEB_SEARCH_SNIPPET_CHARS = 400;
/** One result's title, in characters. */
export const MAX_WEB_SEARCH_TITLE_CHARS = 200;
/** A result URL longer than this (in characters) is dropped rather than cut: a cut URL would not fetch. */
export const MAX_WEB_SEARCH_URL_CHARS = 2_048;
/** `web_search`'s `sites` filter names at most this many domains (each one is a `site:` term of the query). */
export const MAX_WEB_SEARCH_SITES = 10;
/** Bytes of a backend's answer read at most; a bigger answer is TOOL_FAILED (a search answer is a few KiB). */
export const MAX_WEB_SEARCH_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Characters of a backend's answer that is not JSON quoted in the TOOL_FAILED message. */
export const WEB_SEARCH_BODY_EXCERPT_CHARS = 120;
/** Characters of a backend's error detail (its JSON error fields, or its text) quoted in a message. */
export const WEB_SEARCH_ERROR_DETAIL_CHARS = 200;
