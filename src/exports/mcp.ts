// `ptc-harness/mcp`: the code-mode MCP server (`ptc mcp serve`) and the MCP client plugin that turns
// MCP servers' tools into harness tools (docs/mcp.md, docs/mcp-server.md).

export * from '../mcp/server/index.js';
export * from '../mcp/client/index.js';
