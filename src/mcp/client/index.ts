// The MCP client: MCP servers' tools in the registry through the `mcp` row (docs/mcp.md).

export { mcpPlugin, type McpRowConfig } from './plugin.js';
export {
  expandServerConfig,
  mcpConfigRow,
  mcpConfigSchema,
  readMcpConfigFile,
  MCP_SERVER_NAME_PATTERN,
  type McpConfig,
  type McpConfigRow,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
} from './config.js';
export { mcpToolName } from './server-tool.js';
