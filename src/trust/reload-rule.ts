// The harness's reload rule for plugin hot reload (docs/plugin-reload.md, "Trust"): kept with
// workspace trust, which it asks, and handed to the reloader (src/presets/plugin-reload.ts) by the
// harness, so preset assembly does not reach up into trust.

import { isProtectedUnder, isWithin, policyRoots, type WorkspacePolicy } from '../sandbox/index.js';
import type { ReloadRule } from '../presets/plugin-reload.js';
import { checkWorkspaceTrust, trustCommand, untrustedReason } from './workspace-trust.js';

/**
 * The harness's rule (docs/plugin-reload.md, "Trust"): a row of a workspace preset reloads only while
 * the workspace is trusted with exactly the files it has now (an edit makes it `changed`: `ptc trust`
 * again); any other row's files reload only when programs cannot write them (outside the sandbox's
 * writable roots, or protected), so a program cannot edit code that the host then imports.
 */
export function harnessReloadRule(options: {
  readonly policy: WorkspacePolicy;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The preset's own rows are a workspace preset's (rows past it were appended by the caller). */
  readonly workspaceRows: number;
  readonly trustWorkspace: boolean;
}): ReloadRule {
  return (row, graph) => {
    if (row.index <= options.workspaceRows) {
      if (options.trustWorkspace) return undefined;
      const trust = checkWorkspaceTrust(options.policy.cwd, { env: options.env });
      if (trust.state === 'trusted' || trust.state === 'nothing') return undefined;
      return `${untrustedReason(trust)}, so the edited plugin is not imported; review it and trust it again with \`${trustCommand(trust.config.workspace)}\``;
    }
    const writable = graph.files.filter((file) => programsCanWrite(options.policy, file));
    if (writable.length === 0) return undefined;
    return (
      `${writable.join(', ')} can be written by programs (it is inside the sandbox's writable area), so an edit is not imported on the host between turns; ` +
      'restart to load it, or keep the plugin under .ptc/ or outside the workspace (or name it with --protect) to have edits reloaded'
    );
  };
}

function programsCanWrite(policy: WorkspacePolicy, file: string): boolean {
  return policyRoots(policy, 'write').some((root) => isWithin(file, root)) && !isProtectedUnder(policy, file);
}
