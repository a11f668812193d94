// The config files a command reads (docs/config.md, "Locations"): the user's, and the workspace's
// `.ptc/config.yaml` only when the workspace is trusted. A project file can name MCP server commands
// and allow rules, so it is workspace configuration like `.ptc/presets` (docs/security.md): it is in
// the trust digest (src/trust/workspace-config.ts), and a change to it asks for trust again.

import fs from 'node:fs';
import { ApprovalRuleSet } from '../approvals/approval-rule-set.js';
import { projectConfigPath, userConfigPath } from './config-paths.js';
import type { EffectiveConfig } from './effective-config.js';
import { readConfigFile, type LoadedConfigFile } from './load-config-file.js';
import { saveAllowRule } from './save-rule.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigFiles {
  readonly user: { readonly file: string; readonly loaded?: LoadedConfigFile };
  /** Absent when no workspace applies (or its file does not exist). */
  readonly project?: {
    readonly file: string;
    readonly loaded?: LoadedConfigFile;
    /** Why it was not loaded, with the command that fixes it. */
    readonly ignored?: string;
  };
}

export interface LoadConfigOptions {
  readonly env: Env;
  /** The workspace whose `.ptc/config.yaml` applies, if any. */
  readonly workspace?: string;
}

/** Reads the user file and, for a trusted workspace, the project file. Invalid files are CONFIG. */
export async function loadConfigFiles(options: LoadConfigOptions): Promise<ConfigFiles> {
  const userFile = userConfigPath(options.env);
  const user = { file: userFile, ...optional('loaded', readConfigFile(userFile)) };
  if (options.workspace === undefined) return { user };
  const project = await loadProjectConfig(options.workspace, options.env);
  return project === undefined ? { user } : { user, project };
}

/** The project file of `workspace` when it exists: loaded if the workspace is trusted, else why not. */
export async function loadProjectConfig(workspace: string, env: Env): Promise<ConfigFiles['project']> {
  const options = { workspace, env };
  const projectFile = projectConfigPath(options.workspace);
  if (!fs.existsSync(projectFile)) return undefined;
  // Loaded only when needed: the trust check reads the workspace's presets and plugin files.
  const { checkWorkspaceTrust, trustCommand, untrustedReason } = await import('../trust/workspace-trust.js');
  let trust: ReturnType<typeof checkWorkspaceTrust> | undefined;
  let problem: string | undefined;
  try {
    trust = checkWorkspaceTrust(options.workspace, { env: options.env });
  } catch (error) {
    problem = `the configuration of workspace ${options.workspace} cannot be reviewed (${(error as Error).message.split('\n')[0]})`;
  }
  if (trust?.state === 'trusted') return { file: projectFile, ...optional('loaded', readConfigFile(projectFile)) };
  const reason = problem ?? untrustedReason(trust!);
  return { file: projectFile, ignored: `${reason}; review it and trust it with \`${trustCommand(trust?.config.workspace ?? options.workspace)}\`` };
}

/** The rules of `config`; "always allow" answers are saved to the user file. */
export function ruleSetOf(config: EffectiveConfig, files: ConfigFiles): ApprovalRuleSet {
  const file = files.user.file;
  return new ApprovalRuleSet(config.rules, (rule) => saveAllowRule(file, rule), file);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
