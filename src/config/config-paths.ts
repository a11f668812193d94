// Where the config files are (docs/config.md, "Locations"). The user file follows the XDG base
// directory rule, apart from $PTC_HOME: that directory holds state (sessions, trust, presets), the
// config file holds choices, and a user who points PTC_HOME elsewhere for a test keeps their choices.

import os from 'node:os';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_FILE_NAME = 'config.yaml';

/** `$PTC_CONFIG`, else `$XDG_CONFIG_HOME/ptc/config.yaml`, else `~/.config/ptc/config.yaml`. */
export function userConfigPath(env: Env): string {
  const named = env['PTC_CONFIG']?.trim();
  if (named !== undefined && named !== '') return path.resolve(named);
  const xdg = env['XDG_CONFIG_HOME']?.trim();
  // The XDG rule: a relative XDG_CONFIG_HOME is invalid and ignored.
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(env['HOME'] ?? os.homedir(), '.config');
  return path.join(base, 'ptc', CONFIG_FILE_NAME);
}

/** `<workspace>/.ptc/config.yaml`: loaded only when the workspace is trusted (docs/security.md). */
export function projectConfigPath(workspace: string): string {
  return path.join(workspace, '.ptc', CONFIG_FILE_NAME);
}
