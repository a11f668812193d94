// The MCP server side: code mode served to any MCP client (`ptc mcp serve`, docs/mcp-server.md).

export { createCodeModeServer, MCP_SERVER_NAME, type CodeModeServerOptions, type RunCodeStructuredContent } from './code-mode-server.js';
export { MCP_LOGGER_NAME } from './call-reporter.js';
export { serveMcpStdio, type ServeMcpStdioOptions } from './serve-stdio.js';
