// The MCP servers an editor sends in `session/new` and `session/load` (docs/acp.md, "MCP servers"),
// as one `mcp` row of that session's harness. They are the editor user's own configuration, like a
// `--mcp-config` file they typed, so they load whatever the workspace's trust (docs/presets.md).

import type * as acp from '@agentclientprotocol/sdk';
import { ConfigError } from '../errors.js';
import type { ExtraPluginRow } from '../harness.js';
import { MCP_SERVER_NAME_PATTERN, type McpConfig, type McpServerConfig } from '../mcp/client/config.js';

/** Where messages say the row came from. */
export const EDITOR_MCP_ROW_AT = "the editor's mcpServers";

/**
 * The `mcp` row for the editor's servers, or undefined when it sent none. ACP names are
 * human-readable ("GitHub tools"), ours prefix tool names: each run of other characters becomes `_`.
 * CONFIG naming the server for an SSE server (not supported) or two names that become one.
 */
export function editorMcpRow(servers: readonly acp.McpServer[]): ExtraPluginRow | undefined {
  if (servers.length === 0) return undefined;
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    const name = toolPrefixOf(server.name);
    if (Object.hasOwn(mcpServers, name)) {
      throw new ConfigError(`MCP server "${server.name}" of the editor's mcpServers has the same tool prefix \`${name}\` as another; give them distinct names in the editor's settings.`);
    }
    mcpServers[name] = configOf(server);
  }
  const config: McpConfig = { mcpServers };
  return { name: 'mcp', config, at: EDITOR_MCP_ROW_AT };
}

function toolPrefixOf(name: string): string {
  if (MCP_SERVER_NAME_PATTERN.test(name)) return name;
  const mapped = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  if (mapped === '') throw new ConfigError(`MCP server ${JSON.stringify(name)} of the editor's mcpServers has no letter or digit in its name; name it in the editor's settings.`);
  return mapped;
}

function configOf(server: acp.McpServer): McpServerConfig {
  if ('type' in server && server.type === 'sse') {
    throw new ConfigError(`MCP server "${server.name}" of the editor's mcpServers uses SSE, which ptc acp does not support; use its streamable HTTP endpoint (type http) or a stdio command.`);
  }
  if ('url' in server) {
    const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
    return { type: 'http', url: server.url, ...(server.headers.length > 0 ? { headers } : {}) };
  }
  const env = Object.fromEntries(server.env.map((v) => [v.name, v.value]));
  return { command: server.command, ...(server.args.length > 0 ? { args: [...server.args] } : {}), ...(server.env.length > 0 ? { env } : {}) };
}
