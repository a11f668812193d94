// MCP server config: the `mcpServers` object users already have from Claude Desktop / Claude Code,
// for the `mcp` row and `--mcp-config` files (docs/mcp.md). `${VAR}` in any string expands from the
// environment when the row starts its servers, so a preset can name secrets without holding them.

import { z } from 'zod';
import { readConfigText } from '../../config-file.js';
import { ConfigError } from '../../errors.js';
import { MAX_MCP_CONFIG_FILE_BYTES } from './limits.js';

/** Server names become tool-name prefixes (`<server>__<tool>`), so they stay plain. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Whether the server's `readOnlyHint` is believed (docs/mcp.md, "Trust"): only then do its read-only
 * tools overlap in a program's pool and run without asking under `--approve writes`. A hint is the
 * server's own claim about itself, so by default it changes nothing.
 */
const READ_ONLY_HINT_TRUSTED = z.boolean().optional();

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'give the command that starts the server'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Relative to the workspace; default the workspace. */
  cwd: z.string().optional(),
  readOnlyHintTrusted: READ_ONLY_HINT_TRUSTED,
});

const httpServer = z.strictObject({
  type: z.literal('http'),
  url: z.string().min(1, 'give the server URL'),
  headers: z.record(z.string(), z.string()).optional(),
  readOnlyHintTrusted: READ_ONLY_HINT_TRUSTED,
});

const serverSchema = z.union([stdioServer, httpServer], {
  error: 'a server is { command, args?, env?, cwd?, readOnlyHintTrusted? } or { type: "http", url, headers?, readOnlyHintTrusted? }',
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
  return error.issues
    .map((issue) => {
      // At the top level zod would quote the file's unknown keys: a file that is no MCP config is not shown.
      const message = issue.code === 'unrecognized_keys' && issue.path.length === 0 ? 'unknown key (a config has only `mcpServers`)' : issue.message;
      return `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${message}`;
    })
    .join('; ');
}

/** Reads a `--mcp-config` file; any problem is CONFIG naming the file (and the server, for a bad entry). */
export function readMcpConfigFile(file: string): McpConfig {
  const { absolute, text } = readConfigText(file, 'MCP config', MAX_MCP_CONFIG_FILE_BYTES, 'it should list servers only');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the problem; only its place is named (docs/security.md, "Limits that hold").
    throw new ConfigError(`MCP config ${absolute} is not JSON${jsonErrorPlace(text, error)}. The format is { "mcpServers": { "<name>": { "command": "..." } } } (docs/mcp.md).`);
  }
  const parsed = mcpConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`MCP config ${absolute}: ${describeConfigIssues(parsed.error)}. See docs/mcp.md for the format.`);
  }
  return parsed.data;
}

/** ` (line L, column C)` of a JSON.parse failure when its message gives a position, else ` (it ends too early)` or ''. */
function jsonErrorPlace(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = /at position (\d+)/.exec(message);
  if (at) {
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
  }
  return /end of JSON input/.test(message) ? ' (it ends too early)' : '';
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
  const trust = config.readOnlyHintTrusted === true ? { readOnlyHintTrusted: true } : {};
  if (config.type === 'http') {
    const headers = expandRecord(config.headers, 'headers');
    return { type: 'http', url: expand(config.url, 'url'), ...(headers ? { headers } : {}), ...trust };
  }
  const env2 = expandRecord(config.env, 'env');
  return {
    command: expand(config.command, 'command'),
    ...(config.args ? { args: config.args.map((arg, i) => expand(arg, `args.${i}`)) } : {}),
    ...(env2 ? { env: env2 } : {}),
    ...(config.cwd !== undefined ? { cwd: expand(config.cwd, 'cwd') } : {}),
    ...trust,
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
