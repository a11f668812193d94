// Where workflows live (docs/workflows.md, "Where"): the user's `$XDG_CONFIG_HOME/ptc/workflows`
// (else `~/.config/ptc/workflows`), then the workspace's `.ptc/workflows`, read only when the workspace
// is trusted; a later folder overrides an earlier one by name. Its own file, without parsers, so the
// trust check can import the workspace folder's name.

import os from 'node:os';
import path from 'node:path';

/** The workspace's workflow folder, relative to it: workspace configuration, hashed into the trust digest. */
export const WORKSPACE_WORKFLOWS_DIR = '.ptc/workflows';

export type WorkflowLayerName = 'user' | 'workspace';

export interface WorkflowLayer {
  readonly layer: WorkflowLayerName;
  readonly dir: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/ptc/workflows`, else `~/.config/ptc/workflows`. */
export function userWorkflowsDir(env: Env): string {
  const xdg = env['XDG_CONFIG_HOME']?.trim();
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(env['HOME'] ?? os.homedir(), '.config');
  return path.join(base, 'ptc', 'workflows');
}

/** The folders searched, lowest first; the workspace's only when trusted. */
export function workflowLayers(options: { readonly workspace: string; readonly env: Env; readonly trusted: boolean }): WorkflowLayer[] {
  const layers: WorkflowLayer[] = [{ layer: 'user', dir: userWorkflowsDir(options.env) }];
  const workspaceDir = path.join(options.workspace, WORKSPACE_WORKFLOWS_DIR);
  // Working in the config dir's parent makes both one folder: it counts once, as the workspace's.
  if (options.trusted) return [...layers.filter((l) => l.dir !== workspaceDir), { layer: 'workspace', dir: workspaceDir }];
  return layers.filter((l) => l.dir !== workspaceDir);
}
