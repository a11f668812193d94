// MCP server config: the `mcpServers` object users already have from Claude Desktop / Claude Code,
// for the `mcp` row and `--mcp-config` files (docs/mcp.md). `${VAR}` in any string expands from the
// environment when the row starts its servers, so a preset can name secrets without holding them.

import { z } from 'zod';
import { readConfigText } from '../../config-file.js';
import { ConfigError } from '../../errors.js';
import { MAX_MCP_CONFIG_FILE_BYTES } from '../../limits.js';

/** Server names become tool-name prefixes (`<server>__<tool>`), so they stay plain. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'give the command that starts the server'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Relative to the workspace; default the workspace. */
  cwd: z.string().optional(),
});

const httpServer = z.strictObject({
  type: z.literal('http'),
  url: z.string().min(1, 'give the server URL'),
  headers: z.record(z.string(), z.string()).optional(),
});

const serverSchema = z.union([stdioServer, httpServer], {
  error: 'a server is { command, args?, env?, cwd? } or { type: "http", url, headers? }',
});

export const mcpConfigSchema = z.strictObject({
  mcpServers: z.record(z.string(), serverSchema).superRefine((servers, check) => {
    for (const name of Object.keys(servers)) {
      if (!MCP_SERVER_NAME_PATTERN.test(name)) {
        check.addIssue({ code: 'custom', path: [name], message: 'server names use only letters, digits, _ and - (they prefix tool names)' });
      }
    }
  }),
});

export type McpStdioServerConfig = z.infer<typeof stdioServer>;
export type McpHttpServerConfig = z.infer<typeof httpServer>;
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;
export type McpConfig = z.infer<typeof mcpConfigSchema>;

/** One `path: message` line per problem, as preset config errors are written. */
export function describeConfigIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`).join('; ');
}

/** Reads a `--mcp-config` file; any problem is CONFIG naming the file (and the server, for a bad entry). */
export function readMcpConfigFile(file: string): McpConfig {
  const { absolute, text } = readConfigText(file, 'MCP config', MAX_MCP_CONFIG_FILE_BYTES, 'it should list servers only');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MCP config ${absolute} is not JSON: ${(error as Error).message}. The format is { "mcpServers": { "<name>": { "command": "..." } } } (docs/mcp.md).`);
  }
  const parsed = mcpConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`MCP config ${absolute}: ${describeConfigIssues(parsed.error)}. See docs/mcp.md for the format.`);
  }
  return parsed.data;
}

/**
 * Expands `${VAR}` in every string of one server's config. A variable that is not set is CONFIG
 * naming the server and the variable (an empty string would start a server with a wrong secret).
 */
export function expandServerConfig(name: string, config: McpServerConfig, env: Readonly<Record<string, string | undefined>>): McpServerConfig {
  const expand = (text: string, where: string): string =>
    text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const value = env[variable];
      if (value === undefined) {
        throw new ConfigError(`MCP server \`${name}\`: ${where} uses \${${variable}}, which is not set in the environment; set it or remove it.`);
      }
      return value;
    });
  const expandRecord = (record: Readonly<Record<string, string>> | undefined, where: string) =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v, `${where}.${k}`)]));
  if (config.type === 'http') {
    const headers = expandRecord(config.headers, 'headers');
    return { type: 'http', url: expand(config.url, 'url'), ...(headers ? { headers } : {}) };
  }
  const env2 = expandRecord(config.env, 'env');
  return {
    command: expand(config.command, 'command'),
    ...(config.args ? { args: config.args.map((arg, i) => expand(arg, `args.${i}`)) } : {}),
    ...(env2 ? { env: env2 } : {}),
    ...(config.cwd !== undefined ? { cwd: expand(config.cwd, 'cwd') } : {}),
  };
}

/** A row appended to the preset by `--mcp-config <file>` (shaped as createHarness's ExtraPluginRow). */
export interface McpConfigRow {
  readonly name: 'mcp';
  readonly config: McpConfig;
  readonly at: string;
}

/** The `mcp` row for a `--mcp-config` file, read and checked now (CONFIG naming the file). */
export function mcpConfigRow(file: string): McpConfigRow {
  return { name: 'mcp', config: readMcpConfigFile(file), at: `--mcp-config ${file}` };
}
