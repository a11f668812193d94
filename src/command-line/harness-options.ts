// The harness options the terminal front-ends (`ptc <command>` and `ptc chat`) take from their
// flags: the workspace check and the preset, plugin, policy and config rows. Shared below both, so
// the chat does not reach into the CLI's commands (docs/architecture.md, "Layers").

import fs from 'node:fs';
import path from 'node:path';
import { AGENT_ROWS } from '../agent/agent-rows.js';
import { ConfigError } from '../errors.js';
import type { ExtraPluginRow, HarnessOptions } from '../harness.js';
import { mcpConfigRow } from '../mcp/client/config.js';
import type { PresetFile } from '../presets/preset-file.js';

export interface WorkspaceOptions {
  readonly cwd?: string;
  /** `--preset <name|path>`, or a preset already read (a Python program's preset with its runtime swapped). */
  readonly preset?: string | PresetFile;
  /** `--plugin <file>` (repeatable): rows appended to the preset, paths relative to the command's cwd. */
  readonly plugins?: readonly string[];
  /** `--mcp-config <file>` (repeatable): each file appends an `mcp` row (docs/mcp.md). */
  readonly mcpConfigs?: readonly string[];
  /** Rows the config files add: their `mcpServers` (docs/config.md). */
  readonly configRows?: readonly ExtraPluginRow[];
}

/** The harness settings a CLI command takes from its flags (workspace, preset, plugins, deadline, sandbox policy). */
export type PolicyOptions = WorkspaceOptions & Pick<HarnessOptions, 'timeoutMs' | 'sandbox' | 'allowRead' | 'allowWrite' | 'allowNet' | 'protect' | 'approvalRules' | 'webSearch' | 'watchPlugins'>;

/** HarnessOptions from CLI flags: `--plugin` files become rows relative to the command's cwd. */
export function harnessOptionsOf(options: PolicyOptions & Pick<HarnessOptions, 'maxParallelSubCalls'>): HarnessOptions {
  const { plugins, mcpConfigs, configRows, cwd, preset, timeoutMs, sandbox, allowRead, allowWrite, allowNet, protect, maxParallelSubCalls, approvalRules, webSearch, watchPlugins } = options;
  const rows = [
    ...(plugins ?? []).map((name) => ({ name, baseDir: process.cwd(), at: '--plugin' })),
    ...(configRows ?? []),
    ...(mcpConfigs ?? []).map((file) => mcpConfigRow(file)),
  ];
  return {
    cwd: checkWorkspace(cwd),
    // The agent's row kinds: a preset's `loop` row is the real loop (src/agent/agent-rows.ts).
    rowKinds: AGENT_ROWS,
    ...(preset !== undefined ? { preset } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    ...(allowRead !== undefined ? { allowRead } : {}),
    ...(allowWrite !== undefined ? { allowWrite } : {}),
    ...(allowNet !== undefined ? { allowNet } : {}),
    ...(protect !== undefined && protect.length > 0 ? { protect } : {}),
    ...(maxParallelSubCalls !== undefined ? { maxParallelSubCalls } : {}),
    ...(rows.length > 0 ? { plugins: rows } : {}),
    ...(approvalRules !== undefined ? { approvalRules } : {}),
    ...(webSearch !== undefined ? { webSearch } : {}),
    ...(watchPlugins === true ? { watchPlugins } : {}),
  };
}

/** The workspace directory of `--cwd` (default: the current one), checked to exist. */
export function checkWorkspace(cwd: string | undefined): string {
  const dir = path.resolve(cwd ?? process.cwd());
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ConfigError(`--cwd ${dir} does not exist; pass an existing directory.`);
  }
  if (!stat.isDirectory()) throw new ConfigError(`--cwd ${dir} is not a directory; pass a directory.`);
  return dir;
}
