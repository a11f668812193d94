// Folders outside the workspace that `read` (and only `read`) may also reach, registered per policy
// by a row: the loaded skills' folders (docs/skills.md, "Files beside a skill"). Exactly those folders,
// for as long as the row is loaded; the sandbox never sees them.

import type { WorkspacePolicy } from '../sandbox/index.js';

const ROOTS = new WeakMap<WorkspacePolicy, Set<string>[]>();

/** Adds `dirs` (real paths) as read roots of `policy`; the returned function removes them. */
export function addReadRoots(policy: WorkspacePolicy, dirs: readonly string[]): () => void {
  const set = new Set(dirs);
  const list = ROOTS.get(policy) ?? [];
  list.push(set);
  ROOTS.set(policy, list);
  return () => {
    const at = list.indexOf(set);
    if (at >= 0) list.splice(at, 1);
  };
}

/** Every extra read root registered for `policy`. */
export function readRootsOf(policy: WorkspacePolicy): string[] {
  return (ROOTS.get(policy) ?? []).flatMap((set) => [...set]);
}
