// Tunables of the MCP client, the `mcp` row (docs/mcp.md), unit in the name or the comment.

/** A `--mcp-config` file larger than this is refused unread (it lists servers, nothing more). */
export const MAX_MCP_CONFIG_FILE_BYTES = 256 * 1024;
/** Time one MCP server has to start, answer `initialize` and list its tools; beyond it the row fails (CONFIG). */
export const MCP_SERVER_START_TIMEOUT_MS = 30_000;
/** One MCP tool call's deadline (restarted by the server's progress notifications); the program's own deadline still applies. */
export const MCP_TOOL_CALL_TIMEOUT_MS = 600_000;
/** Bytes of a server's stderr kept for error messages (its last lines). */
export const MCP_STDERR_TAIL_BYTES = 2 * 1024;
/** Tools taken from one server; a longer list is refused (CONFIG when starting). */
export const MCP_MAX_TOOLS_PER_SERVER = 1_000;
/** Pages of `tools/list` followed before a server's list is taken as endless. */
export const MCP_MAX_LIST_PAGES = 100;
/** Characters kept of a server's tool description (a longer one is cut with a note). */
export const MCP_MAX_TOOL_DESCRIPTION_CHARS = 8_000;
/** Longest MCP tool name registered, in characters (the MCP specification's tool-name bound); a longer one is skipped. */
export const MCP_MAX_TOOL_NAME_CHARS = 128;
/** Restarts of a server that died mid-session; after them its calls fail until the harness restarts. */
export const MCP_MAX_RESTARTS = 1;
/** Characters of a server's or tool's name a message quotes; a longer one is cut with an ellipsis. */
export const MCP_MAX_SHOWN_NAME_CHARS = 80;
