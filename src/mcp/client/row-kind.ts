// The `mcp` row of a preset file: MCP servers' tools as harness tools (docs/mcp.md). Its servers are
// commands on the host, so the trust prompt lists them and Creator mode's preset check validates
// the row's config without starting them.

import type { PresetRow, RowKind } from '../../row-kind.js';
import type { Plugin } from '../../context/context.js';
import { shellWord } from '../../shell-word.js';
import { describeConfigIssues, mcpConfigSchema } from './config.js';

export const mcpRowKind: RowKind = {
  load: async () => (await import('./plugin.js')).mcpPlugin as Plugin<unknown>,
  hostCommands: serverCommands,
  checkConfig(config) {
    const parsed = mcpConfigSchema.safeParse(config ?? {});
    return parsed.success ? undefined : describeConfigIssues(parsed.error);
  },
};

/** One line per server of an `mcp` row: where it is written, its name and the command it runs (or its URL). */
function serverCommands(row: PresetRow): string[] {
  const servers = (row.config as { mcpServers?: unknown } | undefined)?.mcpServers;
  if (typeof servers !== 'object' || servers === null) return [`${row.at} \`mcp\` row: ${JSON.stringify(row.config ?? null)}`];
  return Object.entries(servers as Record<string, unknown>).map(([name, server]) => {
    const s = (typeof server === 'object' && server !== null ? server : {}) as { command?: unknown; args?: unknown; url?: unknown };
    const what =
      typeof s.command === 'string'
        ? [s.command, ...(Array.isArray(s.args) ? s.args.map(String) : [])].map(shellWord).join(' ')
        : typeof s.url === 'string'
          ? `http ${s.url}`
          : JSON.stringify(server);
    return `${row.at} server \`${name}\`: ${what}`;
  });
}
