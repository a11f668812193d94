// Whether a workspace's configuration may load: trusted when `$PTC_HOME/trust.json` holds its real
// path with the digest of exactly what it would load now (docs/presets.md, "Trust").

import { ptcHome, type PresetSearch } from '../presets/resolve-preset.js';
import { collectWorkspaceConfig, type WorkspaceConfig } from './workspace-config.js';
import { readTrustStore, trustStorePath } from './trust-store.js';

/** `nothing`: the workspace provides nothing to load; `changed`: trusted once, with other files. */
export type TrustState = 'trusted' | 'untrusted' | 'changed' | 'nothing';

export interface WorkspaceTrust {
  readonly config: WorkspaceConfig;
  readonly state: TrustState;
  /** Where trust is recorded (`$PTC_HOME/trust.json`). */
  readonly store: string;
}

export function checkWorkspaceTrust(workspace: string, search: Omit<PresetSearch, 'workspace'> = {}): WorkspaceTrust {
  const config = collectWorkspaceConfig(workspace, search);
  const home = ptcHome(search);
  const store = trustStorePath(home);
  if (config.empty) return { config, state: 'nothing', store };
  const record = readTrustStore(home)[config.workspace];
  const state = record === undefined ? 'untrusted' : record.digest === config.digest ? 'trusted' : 'changed';
  return { config, state, store };
}

export { trustCommand } from '../trust-command.js';

/** Why a workspace's configuration did not load, for a message that names the file and the fix. */
export function untrustedReason(trust: WorkspaceTrust): string {
  return trust.state === 'changed'
    ? `workspace ${trust.config.workspace} changed since you trusted it (its .ptc presets or config file, skills, workflows, plugin files or packages differ)`
    : `workspace ${trust.config.workspace} is not trusted`;
}
