// The config files a command reads (docs/config.md, "Locations"): the user's, and the workspace's
// `.ptc/config.yaml` only when the workspace is trusted. A project file can name MCP server commands
// and allow rules, so it is workspace configuration like `.ptc/presets` (docs/security.md): it is in
// the trust digest (workspace-config.ts), and a change to it asks for trust again. Here, not in
// src/config/, because the gate is trust's: the config folder sits below trust (docs/architecture.md).

import fs from 'node:fs';
import { projectConfigPath, userConfigPath } from '../config/config-paths.js';
import type { ConfigFiles, LoadConfigOptions, Env } from '../config/load-config.js';
import { readConfigFile } from '../config/load-config-file.js';

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
  const { checkWorkspaceTrust, trustCommand, untrustedReason } = await import('./workspace-trust.js');
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

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
