// THE policy of a harness (docs/sandbox.md): what programs, their child processes, the bash tool and
// the host-side file tools may read, write and reach. Resolved once, by createHarness, into absolute
// real paths; every consumer receives the same frozen object and never re-derives it.

import path from 'node:path';
import { ConfigError } from '../errors.js';
import { isWithin, realpathOrUndefined } from './policy.js';
import { isProtectedPath } from './protected-paths.js';
import type { SandboxPolicy, WorkspacePolicy } from './types.js';

export type { WorkspacePolicy } from './types.js';

/** What a user or a caller gives; relative paths resolve against `cwd`. */
export interface WorkspacePolicyInput {
  readonly cwd: string;
  readonly allowRead?: readonly string[];
  readonly allowWrite?: readonly string[];
  readonly network?: boolean;
  readonly processes?: boolean;
  /** Paths read-only for programs and asked for by the file tools (`--protect`), besides `.git` and `.ptc`. */
  readonly protect?: readonly string[];
}

/**
 * Resolves a policy once. The workspace must exist (CONFIG otherwise, naming the fix); a widening
 * path that does not exist is skipped (nothing there to read or confine), and a widening already
 * covered by a writable root is dropped, so a read-only root never narrows a writable one.
 */
export function resolveWorkspacePolicy(input: WorkspacePolicyInput): WorkspacePolicy {
  const absoluteCwd = path.resolve(input.cwd);
  const cwd = realpathOrUndefined(absoluteCwd);
  if (cwd === undefined) {
    throw new ConfigError(`The workspace "${absoluteCwd}" does not exist. Create it, or pass an existing directory with --cwd.`);
  }
  const realOf = (paths: readonly string[] | undefined): string[] => {
    const out: string[] = [];
    for (const given of paths ?? []) {
      const real = realpathOrUndefined(path.resolve(absoluteCwd, given));
      if (real !== undefined && !out.includes(real)) out.push(real);
    }
    return out;
  };
  const write: string[] = [];
  for (const root of realOf(input.allowWrite).sort(byDepth)) {
    if (!isWithin(root, cwd) && !write.some((w) => isWithin(root, w))) write.push(root);
  }
  const writable = [cwd, ...write];
  const read = realOf(input.allowRead).filter((root) => !writable.some((w) => isWithin(root, w)));
  // A protected path need not exist yet: the file tools refuse to create it, so it is kept by its
  // real parent (or as given) when missing.
  const protect: string[] = [];
  for (const given of input.protect ?? []) {
    const absolute = path.resolve(absoluteCwd, given);
    const parent = realpathOrUndefined(path.dirname(absolute));
    const real = realpathOrUndefined(absolute) ?? (parent === undefined ? absolute : path.join(parent, path.basename(absolute)));
    if (!protect.includes(real)) protect.push(real);
  }
  return Object.freeze({
    cwd,
    read: Object.freeze(read),
    write: Object.freeze(write),
    network: input.network ?? false,
    processes: input.processes ?? true,
    protect: Object.freeze(protect),
  });
}

/** True when a write to `target` (absolute, real) must have a person's yes (docs/sandbox.md, "Protected paths"). */
export function isProtectedUnder(policy: WorkspacePolicy, target: string): boolean {
  return isProtectedPath(target, policyRoots(policy, 'write'), policy.protect ?? []);
}

/** The roots a kind of access may touch: cwd and the writable roots, plus the read roots for reading. */
export function policyRoots(policy: WorkspacePolicy, access: 'read' | 'write'): readonly string[] {
  return access === 'write' ? [policy.cwd, ...policy.write] : [policy.cwd, ...policy.write, ...policy.read];
}

function byDepth(a: string, b: string): number {
  return a.split('/').length - b.split('/').length;
}

/**
 * The launch policy of one confined process: the workspace policy plus its complete environment and,
 * for a run that has one, a private host temp dir made readable and writable. The one place where a
 * WorkspacePolicy becomes what planLaunch takes, so the Node runtime and bash cannot drift apart.
 */
export function sandboxPolicyOf(
  policy: WorkspacePolicy,
  env: Readonly<Record<string, string>>,
  extra: { readonly privateDir?: string } = {},
): SandboxPolicy {
  const own = extra.privateDir === undefined ? [] : [extra.privateDir];
  // A read-only workspace keeps its writable roots readable, and only the private dir writable.
  const readOnly = policy.readOnlyWorkspace === true;
  return {
    cwd: policy.cwd,
    read: readOnly ? [...policy.read, ...policy.write, ...own] : [...policy.read, ...own],
    write: readOnly ? own : [...policy.write, ...own],
    network: policy.network,
    processes: policy.processes,
    ...(policy.protect !== undefined && policy.protect.length > 0 ? { protect: [...policy.protect] } : {}),
    ...(readOnly ? { readOnlyWorkspace: true } : {}),
    env: { ...env },
  };
}
