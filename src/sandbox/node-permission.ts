// The fallback when bubblewrap is unusable: Node's own permission model. It is a seatbelt, not a
// boundary: it confines the fs API calls of the Node process (following symlinks that already exist
// inside allowed dirs), refuses child processes and Workers, and does nothing about network or
// signals. Only for `kind: 'node'`.

import type { HostLayout } from './bwrap.js';
import type { ResolvedPolicyPaths } from './policy.js';

/** Everything the permission flags are built from. */
export interface NodePermissionInput {
  readonly layout: HostLayout;
  readonly paths: ResolvedPolicyPaths;
  readonly runtimeRead: readonly string[];
  /** The flag that turns the model on: `--experimental-permission` on Node 20-22, `--permission` later. */
  readonly permissionFlag: string;
}

/**
 * The Node options that go BEFORE the caller's own arguments. Reads: the same set bwrap shows (/usr,
 * top-level system dirs, the allowed /etc entries, the Node install) plus cwd, the runtime's own
 * files and the policy paths; writes: cwd and the write paths. One flag per path: Node 20.20 treats a
 * comma as part of the path. No `--allow-child-process` (its children would run unconfined) and no
 * `--allow-worker`.
 */
export function buildNodePermissionArgs(input: NodePermissionInput): string[] {
  const { layout, paths } = input;
  const read = unique([
    '/usr',
    ...layout.rootBinds.map((bind) => bind.source),
    ...layout.etc,
    ...(layout.nodeInstall === undefined ? [] : [layout.nodeInstall]),
    ...input.runtimeRead,
    paths.cwd,
    ...paths.read,
    ...paths.write,
  ]);
  // A read-only workspace (docs/approvals.md): only the private dirs in `write` stay writable.
  const write = unique(paths.cwdReadOnly === true ? [...paths.write] : [paths.cwd, ...paths.write]);
  return [
    input.permissionFlag,
    ...read.map((path) => `--allow-fs-read=${path}`),
    ...write.map((path) => `--allow-fs-write=${path}`),
    '--no-warnings',
  ];
}

/** The permission flag this Node understands. */
export function nodePermissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
