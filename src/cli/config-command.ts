// `ptc config` (docs/config.md): the settings a command would run with here, each with where it
// came from (flag, env, file:line, default), the rules and MCP servers the files add, and which files
// were read; `ptc config path` prints the files' locations. This module imports only commander and
// types; the work is loaded when the command runs (README, "CLI").

import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ConfigError } from '../errors.js';
import type { CommandOutput } from './commands.js';

type Env = Readonly<Record<string, string | undefined>>;

export function buildConfigCommand(print: (out: CommandOutput) => void, env: Env = process.env): Command {
  const config = new Command('config')
    .description('show the effective settings (model, preset, approvals, rules, MCP servers) and the config file each came from')
    .option('--cwd <dir>', 'workspace whose .ptc/config.yaml applies (default: current directory)')
    .option('--json', 'print the settings as JSON')
    .action(async (o: { cwd?: string; json?: boolean }) => {
      print(await runConfigShow({ ...(o.cwd !== undefined ? { cwd: o.cwd } : {}), json: o.json === true, env }));
    });
  config
    .command('path')
    .description('print where the user and project config files are (whether or not they exist)')
    .option('--cwd <dir>', 'workspace (default: current directory)')
    .action(async (o: { cwd?: string }) => {
      const { userConfigPath, projectConfigPath } = await import('../config/config-paths.js');
      print({ stdout: `user     ${userConfigPath(env)}\nproject  ${projectConfigPath(workspaceOf(o.cwd))}\n`, exitCode: 0 });
    });
  config.exitOverride();
  for (const command of config.commands) command.exitOverride();
  return config;
}

export interface ConfigShowOptions {
  readonly cwd?: string;
  readonly json: boolean;
  readonly env: Env;
}

export async function runConfigShow(options: ConfigShowOptions): Promise<CommandOutput> {
  const [{ loadConfigFiles }, { effectiveConfig, ENV_OF, SETTING_KEYS }, { WEB_SEARCH_ENV_NAMES }, { modelChoice }, { DEFAULT_MODEL }, { ruleText }] = await Promise.all([
    import('../trust/trusted-config.js'),
    import('../config/effective-config.js'),
    import('../config/setting-env.js'),
    import('../config/model-settings.js'),
    import('../llm/default-model.js'),
    import('../approvals/approval-rules.js'),
  ]);
  const workspace = workspaceOf(options.cwd);
  const files = await loadConfigFiles({ env: options.env, workspace });
  const config = effectiveConfig({
    ...(files.user.loaded !== undefined ? { user: files.user.loaded } : {}),
    ...(files.project?.loaded !== undefined ? { project: files.project.loaded } : {}),
    env: options.env,
    defaults: { preset: 'ptc' },
  });
  const choice = modelChoice(config.settings);
  const rows: { key: string; value: string; origin: string }[] = [];
  for (const key of SETTING_KEYS) {
    const setting = config.settings[key];
    if (setting !== undefined) rows.push({ key, value: String(setting.value), origin: setting.origin });
  }
  rows.push({ key: '(model used)', value: choice.model === undefined ? DEFAULT_MODEL : choice.baseUrl !== undefined ? `${choice.model} at ${choice.baseUrl}` : choice.model, origin: choice.model === undefined ? 'default' : 'from the rows above' });
  if (config.webSearch !== undefined) {
    const { backend, url, apiKeyEnv } = config.webSearch.value;
    rows.push({ key: 'webSearch', value: [backend, url, apiKeyEnv === undefined ? undefined : `key in $${apiKeyEnv}`].filter((p) => p !== undefined).join(' '), origin: config.webSearch.origin });
  }
  if (config.settings.approve === undefined) rows.push({ key: 'approve', value: 'writes for chat, ui, acp; never for run, exec', origin: 'default' });
  const files_ = {
    user: { file: files.user.file, state: files.user.loaded !== undefined ? 'loaded' : 'absent' },
    project: files.project === undefined ? { state: 'absent' } : { file: files.project.file, state: files.project.ignored !== undefined ? `ignored: ${files.project.ignored}` : 'loaded' },
  };
  const rules = config.rules.map((r) => ({ effect: r.effect, rule: ruleText(r), origin: r.origin }));
  const servers = config.mcpServers.flatMap(({ file, servers: s }) => Object.entries(s).map(([name, server]) => ({ name, what: 'command' in server ? [server.command, ...(server.args ?? [])].join(' ') : `http ${server.url}`, file })));
  if (options.json) {
    const webSearch = config.webSearch === undefined ? null : { ...config.webSearch, value: { ...config.webSearch.value, origin: undefined } };
    const json = { files: files_, settings: config.settings, model: choice, protect: config.protect, rules, mcpServers: servers, webSearch };
    return { stdout: `${JSON.stringify(json, null, 2)}\n`, exitCode: 0 };
  }
  const width = Math.max(...rows.map((r) => r.key.length));
  const valueWidth = Math.min(40, Math.max(...rows.map((r) => r.value.length)));
  const out = [
    `user file     ${files_.user.file} (${files_.user.state})`,
    `project file  ${files.project?.file ?? `${workspace}/.ptc/config.yaml`} (${files_.project.state})`,
    '',
    ...rows.map((r) => `${r.key.padEnd(width)}  ${r.value.padEnd(valueWidth)}  ${r.origin}`),
  ];
  if (config.protect.length > 0) out.push('', 'protected paths:', ...config.protect.map((p) => `  ${p.value}  ${p.origin}`));
  if (rules.length > 0) out.push('', 'approval rules (deny wins):', ...rules.map((r) => `  ${r.effect.padEnd(5)} ${r.rule}  ${r.origin}`));
  if (servers.length > 0) out.push('', 'MCP servers:', ...servers.map((s) => `  ${s.name}: ${s.what}  ${s.file}`));
  out.push('', `Environment variables: ${[...SETTING_KEYS.map((k) => ENV_OF[k]), ...WEB_SEARCH_ENV_NAMES].join(', ')}; a flag wins over all.`);
  return { stdout: `${out.join('\n')}\n`, exitCode: 0 };
}

/** `--cwd` resolved; CONFIG for one that is not a directory (as checkWorkspace, without loading the harness). */
function workspaceOf(cwd: string | undefined): string {
  const dir = path.resolve(cwd ?? process.cwd());
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new ConfigError(`--cwd ${dir} is not an existing directory; pass a directory.`);
  return dir;
}
