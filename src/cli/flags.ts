// Flag parsers and the parsed shapes that several commands share (main.ts, ui-command.ts,
// eval-command.ts). Imports only commander, so `ptc --help` stays cheap (README, "CLI").

import { InvalidArgumentError } from 'commander';
import type { ApprovalPolicy } from '../approvals/approvals.js';
import type { ConfigOptionValues } from './config-options.js';
import type { SandboxMode } from '../ptc-runtime/types.js';

/** The help of `--watch` on chat, acp and ui. */
export const WATCH_HELP = 'reload edited plugin files between turns (config: watchPlugins; docs/plugin-reload.md)';

/** A repeatable flag: each use appends. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Comma-separated and repeatable: `--presets ptc,standard`, `--tasks 'web_*' --tasks 'trade_*'`. */
export function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

export function positiveInteger(flag: string) {
  return integer(flag, 1, Number.MAX_SAFE_INTEGER, `${flag} takes a positive integer`);
}

export function integer(flag: string, min: number, max: number, what = `${flag} takes an integer from ${min} to ${max}`) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${what}, got "${value}".`);
    return n;
  };
}

/** A fraction above 0 and at most 1 (`--compact-threshold 0.8`). */
export function fraction(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError(`${flag} takes a fraction above 0 and at most 1 (e.g. 0.8), got "${value}".`);
    return n;
  };
}

/** The workspace, deadline and sandbox flags of exec, run, chat, acp, mcp serve and ui (and what the config files add, config-options.ts). */
export interface PolicyFlags extends Pick<ConfigOptionValues, 'approvalRules' | 'configRows' | 'webSearch'> {
  preset: string;
  plugin?: string[];
  mcpConfig?: string[];
  cwd?: string;
  timeout?: number;
  sandbox: SandboxMode;
  allowRead?: string[];
  allowWrite?: string[];
  allowNet?: boolean;
  protect?: string[];
  json?: boolean;
  /** `--watch` (chat, acp, ui) or the config's `watchPlugins`: reload edited plugin files between turns (docs/plugin-reload.md). */
  watch?: boolean;
}

/** The agent's flags of run, chat, acp and ui: model, step bound, session directory, approvals. */
export interface AgentFlags {
  model?: string;
  /** The config's `apiKeyEnv` (config-options.ts): the variable holding the key. */
  apiKeyEnv?: string;
  baseUrl?: string;
  maxSteps?: number;
  /** The model's context window in tokens (docs/compaction.md). */
  contextWindow?: number;
  /** Compact past this fraction of the window. */
  compactThreshold?: number;
  sessionDir?: string;
  approve: ApprovalPolicy;
  /** Start in plan mode (docs/plan-mode.md). */
  plan?: boolean;
  resume?: string;
  continue?: boolean;
}

/** PolicyFlags as the harness options of the CLI commands (`harnessOptionsOf` in commands.ts). */
export function policyFromFlags(o: PolicyFlags) {
  return {
    preset: o.preset,
    plugins: o.plugin ?? [],
    mcpConfigs: o.mcpConfig ?? [],
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    ...(o.timeout !== undefined ? { timeoutMs: o.timeout } : {}),
    sandbox: o.sandbox,
    allowRead: o.allowRead ?? [],
    allowWrite: o.allowWrite ?? [],
    allowNet: o.allowNet === true,
    protect: o.protect ?? [],
    json: o.json === true,
    ...(o.approvalRules !== undefined ? { approvalRules: o.approvalRules } : {}),
    ...(o.configRows !== undefined ? { configRows: o.configRows } : {}),
    ...(o.webSearch !== undefined ? { webSearch: o.webSearch } : {}),
    ...(o.watch === true ? { watchPlugins: true } : {}),
  };
}
