// The config files under the command line (docs/config.md): before a command's action runs, its
// options that the command line did not give are filled from the environment and the config files,
// and the lists the files add (protected paths, approval rules, MCP servers) are set beside them.
// Registered as one preAction hook in main.ts; it loads its modules only when a command runs, so
// `ptc --help` pays nothing.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ExtraPluginRow } from '../harness.js';
import type { ApprovalRuleSet } from '../approvals/approval-rule-set.js';
import type { ConfigSources, SettingKey } from '../config/effective-config.js';
import type { WebSearchConfig } from '../builtin-tools/web-search/backend.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What a command takes from the config: its model, its workspace lists, approvals. */
type Use = 'preset' | 'model' | 'maxSteps' | 'context' | 'approve' | 'workspace' | 'mcp' | 'webSearch' | 'watch';

/** By command path. ptc run and exec keep `--approve never` unless the flag says otherwise: no one is there to ask. */
const USES: Readonly<Record<string, readonly Use[]>> = {
  exec: ['preset', 'workspace', 'webSearch'],
  'mcp serve': ['preset', 'workspace', 'webSearch'],
  tools: ['preset', 'mcp'],
  sdk: ['preset', 'mcp'],
  run: ['preset', 'model', 'maxSteps', 'context', 'workspace', 'webSearch'],
  chat: ['preset', 'model', 'maxSteps', 'context', 'approve', 'workspace', 'webSearch', 'watch'],
  acp: ['preset', 'model', 'maxSteps', 'context', 'approve', 'workspace', 'webSearch', 'watch'],
  ui: ['preset', 'model', 'maxSteps', 'context', 'approve', 'workspace', 'webSearch', 'watch'],
  eval: ['model'],
};

/** The option attribute and flag of each setting a command has. */
const OPTION_OF: Readonly<Partial<Record<SettingKey, { attr: string; flag: string }>>> = {
  model: { attr: 'model', flag: '--model' },
  baseUrl: { attr: 'baseUrl', flag: '--base-url' },
  preset: { attr: 'preset', flag: '--preset' },
  approve: { attr: 'approve', flag: '--approve' },
  maxSteps: { attr: 'maxSteps', flag: '--max-steps' },
  contextWindow: { attr: 'contextWindow', flag: '--context-window' },
  compactThreshold: { attr: 'compactThreshold', flag: '--compact-threshold' },
};

/** What the hook adds to a command's options (PolicyFlags, AgentFlags). */
export interface ConfigOptionValues {
  apiKeyEnv?: string;
  approvalRules?: ApprovalRuleSet;
  configRows?: ExtraPluginRow[];
  /** The config's `webSearch`: the web_search tool's backend (docs/web-tools.md). */
  webSearch?: WebSearchConfig;
}

export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The preAction hook: fills `command`'s options from the environment and config files. */
export async function applyConfig(command: Command, env: Env, note: (line: string) => void): Promise<void> {
  const uses = USES[commandPath(command)];
  if (uses === undefined) return;
  const o = command.opts() as Record<string, unknown>;
  // An eval that replays or resumes takes no model (or keeps its run's).
  if (commandPath(command) === 'eval' && (o['replay'] === true || o['resume'] !== undefined)) return;
  const has = (use: Use) => uses.includes(use);
  const workspace = has('workspace') || has('mcp') ? path.resolve(typeof o['cwd'] === 'string' ? o['cwd'] : process.cwd()) : undefined;
  // Nothing configured, and no one to answer "always allow" (which would create the user file):
  // the schema and YAML modules are not even loaded.
  if (!has('approve') && (await nothingConfigured(env, workspace))) {
    if (has('workspace')) {
      const [{ userConfigPath }] = await Promise.all([import('../config/config-paths.js')]);
      const userDir = guardUserConfigDir(userConfigPath(env), workspace!);
      if (userDir !== undefined) command.setOptionValueWithSource('protect', [...(Array.isArray(o['protect']) ? (o['protect'] as string[]) : []), userDir], 'config');
    }
    return;
  }
  const [{ loadConfigFiles }, { ruleSetOf }, { effectiveConfig }, { modelChoice }] = await Promise.all([
    import('../trust/trusted-config.js'),
    import('../config/load-config.js'),
    import('../config/effective-config.js'),
    import('../config/model-settings.js'),
  ]);
  // ptc acp reads each session's project file itself (its cwd is the editor's, per session).
  const perSession = commandPath(command) === 'acp';
  const files = await loadConfigFiles({ env, ...(workspace !== undefined && !perSession ? { workspace } : {}) });
  if (files.project?.ignored !== undefined) note(`ptc: note: ignored ${files.project.file} (${files.project.ignored}).`);

  const flags: Record<string, { value: unknown; flag: string }> = {};
  for (const [key, option] of Object.entries(OPTION_OF)) {
    if (command.getOptionValueSource(option.attr) === 'cli') flags[key] = { value: o[option.attr], flag: option.flag };
  }
  const config = effectiveConfig({
    ...(files.user.loaded !== undefined ? { user: files.user.loaded } : {}),
    ...(files.project?.loaded !== undefined ? { project: files.project.loaded } : {}),
    env,
    flags: flags as ConfigSources['flags'],
  });
  const { settings } = config;
  const set = (attr: string, value: unknown) => command.setOptionValueWithSource(attr, value, 'config');
  const fromConfig = (key: SettingKey) => {
    const setting = settings[key];
    return setting !== undefined && setting.layer !== 'flag' ? setting.value : undefined;
  };
  if (has('preset') && fromConfig('preset') !== undefined) set('preset', fromConfig('preset'));
  if (has('approve') && fromConfig('approve') !== undefined) set('approve', fromConfig('approve'));
  if (has('maxSteps') && fromConfig('maxSteps') !== undefined) set('maxSteps', fromConfig('maxSteps'));
  if (has('context') && fromConfig('contextWindow') !== undefined) set('contextWindow', fromConfig('contextWindow'));
  if (has('context') && fromConfig('compactThreshold') !== undefined) set('compactThreshold', fromConfig('compactThreshold'));
  if (has('model')) {
    const choice = modelChoice(settings);
    set('model', choice.model);
    set('baseUrl', choice.baseUrl);
    if (choice.apiKeyEnv !== undefined) set('apiKeyEnv', choice.apiKeyEnv);
  }
  if (has('workspace')) {
    const protect = [...config.protect.map((p) => path.resolve(workspace!, p.value)), ...(Array.isArray(o['protect']) ? (o['protect'] as string[]) : [])];
    const userDir = guardUserConfigDir(files.user.file, workspace!);
    if (userDir !== undefined) protect.push(userDir);
    // Paths are relative to the workspace (the command's --cwd).
    if (protect.length > 0) set('protect', protect);
    set('approvalRules', ruleSetOf(config, files));
  }
  if (has('workspace') || has('mcp')) {
    const rows: ExtraPluginRow[] = config.mcpServers.map(({ file, servers }) => ({ name: 'mcp', config: { mcpServers: servers }, at: `mcpServers of ${file}` }));
    if (rows.length > 0) set('configRows', rows);
  }
  if (has('webSearch') && config.webSearch !== undefined) set('webSearch', config.webSearch.value);
  // `watchPlugins: true` in either file turns on `--watch` (docs/plugin-reload.md); the project file wins.
  const watch = files.project?.loaded?.values.watchPlugins ?? files.user.loaded?.values.watchPlugins;
  if (has('watch') && o['watch'] === undefined && watch === true) set('watch', true);
}

/**
 * The user config's directory when it lies inside the workspace (working in `~`): protected like
 * `.ptc` (docs/security.md), since a program that wrote it could add MCP server commands and allow
 * rules for the next run. Created first when missing: a protected path is bound read-only only
 * when it exists (docs/sandbox.md, "Protected paths").
 */
function guardUserConfigDir(userFile: string, workspace: string): string | undefined {
  const dir = path.dirname(userFile);
  const relative = path.relative(workspace, dir);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // Not creatable: the file tools still ask for it by name.
  }
  return dir;
}

/** No config file (user, or the workspace's) and no setting in the environment. */
async function nothingConfigured(env: Env, workspace: string | undefined): Promise<boolean> {
  const [{ userConfigPath, projectConfigPath }, { ENV_OF, WEB_SEARCH_ENV_NAMES }] = await Promise.all([import('../config/config-paths.js'), import('../config/setting-env.js')]);
  if ([...Object.values(ENV_OF), ...WEB_SEARCH_ENV_NAMES].some((name) => (env[name] ?? '').trim() !== '')) return false;
  return !fs.existsSync(userConfigPath(env)) && (workspace === undefined || !fs.existsSync(projectConfigPath(workspace)));
}
