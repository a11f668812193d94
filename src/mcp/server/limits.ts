// Tunables of the MCP server, `ptc mcp serve` (docs/mcp-server.md), unit in the name or the comment.

/** One JSON-RPC message a client may send on stdin, in bytes (a program is at most MAX_PROGRAM_BYTES, JSON-escaped). */
export const MAX_MCP_SERVER_MESSAGE_BYTES = 8 * 1024 * 1024;
/** A sub-call's `content` in a served run_code result's `dispatches`, in characters; longer ones are cut with a note. */
export const MAX_MCP_DISPATCH_CONTENT_CHARS = 8_000;
/** All of a served run_code result's `dispatches` as JSON, in bytes; further dispatches are counted in `dispatchesOmitted`. */
export const MAX_MCP_DISPATCHES_BYTES = 4 * 1024 * 1024;
