// Options and flag-to-option mappings that several `ptc` commands share (src/cli/commands/*.ts).
// Imports only commander and the small flag parsers, so loading one command stays cheap
// (docs/benchmarks.md, "CLI start-up").

import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { CommandOutput } from './commands.js';
import type { ExtraPluginRow } from '../harness.js';
import { collect, fraction, integer, positiveInteger, type AgentFlags } from './flags.js';

/** What a command module gets from the entry: where its output goes. */
export interface CliIo {
  /** Prints a command's output and records its exit code. */
  readonly print: (out: CommandOutput) => void;
}

export const presetOption = () =>
  new Option('--preset <name|path>', 'a preset name (ptc presets list) or a path to a preset file').default('ptc');
export const pluginOption = () => new Option('--plugin <file>', 'append a plugin row: a plugin file or package (repeatable)').argParser(collect);
export const mcpConfigOption = () =>
  new Option('--mcp-config <file>', 'append an mcp row: the MCP servers of a config file { "mcpServers": {...} } (repeatable)').argParser(collect);
export const cwdOption = () => new Option('--cwd <dir>', 'workspace (default: current directory)');
const approveOption = (fallback: 'never' | 'writes') =>
  new Option('--approve <policy>', 'which calls need a yes first: never | writes | all (docs/approvals.md)').choices(['never', 'writes', 'all']).default(fallback);

export function addAgentOptions(command: Command, approveDefault: 'never' | 'writes', continuable: boolean): Command {
  command
    .option('--model <provider:id>', 'e.g. deepseek:deepseek-chat, openai:gpt-4.1, anthropic:claude-sonnet-4-5')
    .option('--base-url <url>', 'any OpenAI-compatible endpoint (then --model is the model id)')
    .option('--max-steps <n>', 'stop a turn after this many model requests', positiveInteger('--max-steps'))
    .option('--context-window <tokens>', "the model's context window, when the catalog does not know it (docs/compaction.md)", integer('--context-window', 1024, Number.MAX_SAFE_INTEGER))
    .option('--compact-threshold <fraction>', 'compact when a request would pass this fraction of the window (default 0.8)', fraction('--compact-threshold'))
    .option('--session-dir <dir>', 'where the JSONL session logs go (default ~/.ptc/sessions, env PTC_HOME)')
    .addOption(approveOption(approveDefault))
    .option('--plan', 'start in plan mode: no writes, the model ends with a plan to approve (docs/plan-mode.md)');
  if (continuable) {
    command
      .option('--resume <id>', 'continue this session (an id or unique prefix, ptc sessions list) with a new turn')
      .option('--continue', 'continue the latest session of this workspace');
  }
  return command;
}

export function agentFromFlags(o: AgentFlags) {
  return {
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.apiKeyEnv !== undefined ? { apiKeyEnv: o.apiKeyEnv } : {}),
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
    ...(o.compactThreshold !== undefined ? { compactThreshold: o.compactThreshold } : {}),
    ...(o.sessionDir !== undefined ? { sessionDir: o.sessionDir } : {}),
    approve: o.approve,
    ...(o.plan === true ? { plan: true } : {}),
    ...(o.resume !== undefined ? { resume: o.resume } : {}),
    ...(o.continue === true ? { continueLatest: true } : {}),
  };
}

export function addPolicyOptions(command: Command): Command {
  return command
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .option('--timeout <ms>', 'program deadline in ms (wall time, includes awaited tool calls)', positiveInteger('--timeout'))
    .addOption(new Option('--sandbox <mode>', 'required | auto | off').choices(['required', 'auto', 'off']).default('auto'))
    .option('--allow-read <path>', 'widen the read policy (repeatable)', collect)
    .option('--allow-write <path>', 'widen the write policy (repeatable)', collect)
    .option('--allow-net', 'allow network from programs and tools')
    .option('--protect <path>', 'keep a path read-only for programs and ask before the file tools write it, besides .git and .ptc (repeatable)', collect);
}

/** `--preset`, `--plugin`, `--mcp-config`, `--cwd` and the config's rows as WorkspaceOptions (commands.ts). */
export function workspaceFlags(o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; configRows?: ExtraPluginRow[] }) {
  return {
    preset: o.preset,
    plugins: o.plugin ?? [],
    mcpConfigs: o.mcpConfig ?? [],
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    ...(o.configRows !== undefined ? { configRows: o.configRows } : {}),
  };
}

/** The version in package.json (`ptc --version`, and what the MCP and ACP servers announce). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Aborts on the first SIGINT or SIGTERM while `use` runs (the long-running commands). */
export async function withSignals<T>(use: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await use(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
