// The `mcp` row: starts every configured server in parallel when the preset assembles, registers
// each server's tools as `<server>__<tool>`, follows `notifications/tools/list_changed` and closes
// the servers when the row is disposed (docs/mcp.md). Server processes run with the user's rights.

import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Context, Disposer, Plugin } from '../../context/context.js';
import { ConfigError } from '../../errors.js';
import '../../harness-settings.js';
import { expandServerConfig, mcpConfigSchema, type McpConfig } from './config.js';
import type { McpConnection } from './connection.js';
import { createServerTool } from './server-tool.js';
import { quoteName, toolNameProblem } from './server-text.js';

export type McpRowConfig = McpConfig;

export const mcpPlugin: Plugin<McpRowConfig> = {
  name: 'mcp',
  inject: ['tools', 'harness'],
  config: mcpConfigSchema,
  async apply(ctx, config) {
    // The MCP SDK loads only for a preset with an mcp row: it is most of what a command would load
    // otherwise (bench/cli-start.ts counts the modules).
    const { McpConnection } = await import('./connection.js');
    const env = process.env;
    const names = Object.keys(config.mcpServers);
    const registered = new Map<string, (tools: readonly Tool[]) => void>();
    // A list_changed that arrives while other servers are still starting: its list wins over the first.
    const latest = new Map<string, readonly Tool[]>();
    // Expanded before anything starts: a missing variable fails the row without starting a process.
    const connections = names.map(
      (name) =>
        new McpConnection({
          name,
          config: expandServerConfig(name, config.mcpServers[name]!, env),
          workspace: ctx.harness.cwd,
          onToolsChanged: (tools) => {
            const sync = registered.get(name);
            if (sync) sync(tools);
            else latest.set(name, tools);
          },
        }),
    );
    ctx.effect(() => () => Promise.all(connections.map((c) => c.close())).then(() => {}));
    const started = await Promise.allSettled(connections.map((c) => c.start()));
    const failures = started.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)] : []));
    if (failures.length > 0) throw new ConfigError(failures.join(' / '));
    connections.forEach((connection, i) => {
      const sync = toolSync(ctx, connection);
      registered.set(connection.name, sync);
      sync(latest.get(connection.name) ?? (started[i] as PromiseFulfilledResult<Tool[]>).value);
    });
  },
};

/** Keeps the registry in step with a server's tool list: drops what went away, adds what is new. */
function toolSync(ctx: Context, connection: McpConnection): (tools: readonly Tool[]) => void {
  const current = new Map<string, { key: string; dispose: Disposer }>();
  return (tools) => {
    const next = new Map(tools.map((tool) => [tool.name, tool]));
    for (const [name, entry] of current) {
      const tool = next.get(name);
      if (tool && JSON.stringify(tool) === entry.key) continue;
      void entry.dispose();
      current.delete(name);
    }
    for (const [name, tool] of next) {
      if (current.has(name)) continue;
      const problem = toolNameProblem(name);
      if (problem !== undefined) {
        warnOnce(connection.name, name, problem);
        continue;
      }
      let dispose: Disposer;
      try {
        dispose = ctx.tools.register(createServerTool(connection, tool));
      } catch (error) {
        throw new ConfigError(`MCP server \`${connection.name}\`: tool ${JSON.stringify(name)} cannot be registered: ${error instanceof Error ? error.message : String(error)}`);
      }
      current.set(name, { key: JSON.stringify(tool), dispose });
    }
  };
}

const warned = new Set<string>();

/**
 * A tool skipped for its name, said once per process on stderr (never on stdout, which `ptc mcp
 * serve` and `ptc acp` speak their protocol on). The name is quoted and cut (server-text.ts).
 */
function warnOnce(server: string, name: string, problem: string): void {
  const key = `${server}\u0000${name}`;
  if (warned.has(key)) return;
  warned.add(key);
  process.stderr.write(
    `ptc: MCP server \`${server}\`: tool ${quoteName(name)} is not registered: ${problem} (docs/mcp.md, "Tools").\n`,
  );
}
