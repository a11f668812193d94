// Protected paths (docs/sandbox.md, "Protected paths"): `.git` and `.ptc` entries and the paths a user
// names with --protect stay read-only for programs, their children and the bash tool, and the file
// tools write them only with a person's yes for that exact call. This file decides what is protected
// (one rule for the binds and the file tools) and finds what a bwrap launch must bind.

import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { PROTECTED_SCAN_CACHE_MS, PROTECTED_SCAN_MAX_DIRS, GITFILE_MAX_CHARS } from './limits.js';
import { isWithin, realpathOrUndefined } from './policy.js';

/** Entry names protected wherever they appear below a writable root. */
export const PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.ptc']);


/** Directories the nested scan never enters (dependency trees: large, and not the user's repositories). */
const SCAN_SKIPPED_DIRS = new Set(['node_modules']);

/**
 * True when `target` (an absolute, normalised path) is protected: it is, or is inside, a `.git` or
 * `.ptc` entry below one of the writable `roots`, or one of the `extra` paths.
 */
export function isProtectedPath(target: string, roots: readonly string[], extra: readonly string[]): boolean {
  if (extra.some((entry) => isWithin(target, entry))) return true;
  for (const root of roots) {
    if (!isWithin(target, root) || target === root) continue;
    if (path.relative(root, target).split(path.sep).some((part) => PROTECTED_NAMES.includes(part))) return true;
  }
  return false;
}

/** What a bwrap launch binds to keep the protected paths read-only. */
export interface ProtectedBinds {
  /** Existing protected entries (directories or files), bound read-only onto themselves. */
  readonly existing: readonly string[];
  /**
   * `.git`/`.ptc` missing at a writable root: an empty read-only directory is mounted there, so a
   * program cannot create one (bwrap leaves the empty mount point directory behind on the host, which
   * git ignores: an empty `.git` directory is not a repository, and discovery goes on to the parent).
   */
  readonly placeholders: readonly string[];
  /**
   * Directories between a writable root and a protected entry, bound onto themselves: a mount point
   * cannot be renamed or removed (EBUSY), so a program cannot move a protected repository aside and
   * put a directory of its own in its place.
   */
  readonly pins: readonly string[];
}

/** Nested entries of one root, from a walk at most PROTECTED_SCAN_CACHE_MS old. */
interface NestedScan {
  readonly at: number;
  readonly maxDirs: number;
  readonly entries: readonly string[];
}
const nestedScans = new Map<string, NestedScan>();

/**
 * Finds the protected entries of the writable `roots` (real paths): `.git`/`.ptc` at each root as
 * they are now (a placeholder when missing), nested ones found by a walk of at most `maxDirs`
 * directories (never following symlinks, skipping node_modules; reused for PROTECTED_SCAN_CACHE_MS,
 * since a walk of the full bound costs about 0.1 s and bash launches once per command), and the
 * `extra` paths that exist. A protected entry that is a symbolic link is not bound (a mount would
 * land on its target, not on the link). The binds use bwrap's `-try` forms, so an entry removed
 * since the walk does not fail the launch.
 */
export function findProtectedBinds(roots: readonly string[], extra: readonly string[], maxDirs = PROTECTED_SCAN_MAX_DIRS): ProtectedBinds {
  const existing = new Set<string>();
  const placeholders = new Set<string>();
  const pins = new Set<string>();
  const pinBetween = (root: string, dir: string): void => {
    for (let at = dir; at !== root && isWithin(at, root); at = path.dirname(at)) pins.add(at);
  };
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) {
      const kind = entryKind(path.join(root, name));
      if (kind === 'missing') placeholders.add(path.join(root, name));
      else if (kind !== 'link') existing.add(path.join(root, name));
    }
    for (const entry of nestedEntries(root, maxDirs)) {
      existing.add(entry);
      pinBetween(root, path.dirname(entry));
    }
  }
  // A `.git` file (a worktree, a submodule, `git init --separate-git-dir`) names the repository
  // directory git really uses; inside a writable root, that directory is protected too.
  for (const entry of [...existing]) {
    const target = gitdirOf(entry);
    const root = target === undefined ? undefined : roots.find((r) => isWithin(target, r) && target !== r);
    if (target === undefined || root === undefined || entryKind(target) !== 'dir') continue;
    existing.add(target);
    pinBetween(root, path.dirname(target));
  }
  for (const entry of extra) {
    // A whole root given with --protect is bound read-only as a whole.
    if (roots.includes(entry)) {
      existing.add(entry);
      continue;
    }
    const root = roots.find((r) => isWithin(entry, r));
    if (root === undefined) continue;
    const kind = entryKind(entry);
    if (kind === 'dir' || kind === 'file') {
      existing.add(entry);
      pinBetween(root, path.dirname(entry));
    }
  }
  const within = (p: string): boolean => [...existing].some((e) => p !== e && isWithin(p, e));
  return {
    // A protected entry inside another one is covered by the outer bind.
    existing: [...existing].filter((p) => !within(p)),
    // Nothing can be mounted inside a read-only bind (its mount point cannot be made): covered anyway.
    placeholders: [...placeholders].filter((p) => !within(p)),
    pins: [...pins].filter((p) => !within(p)),
  };
}

function nestedEntries(root: string, maxDirs: number): readonly string[] {
  const cached = nestedScans.get(root);
  const now = performance.now();
  if (cached !== undefined && cached.maxDirs === maxDirs && now - cached.at < PROTECTED_SCAN_CACHE_MS) return cached.entries;
  const found: string[] = [];
  const queue: string[] = [root];
  for (let budget = maxDirs; queue.length > 0 && budget > 0; budget--) {
    const dir = queue.shift() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (PROTECTED_NAMES.includes(entry.name)) {
        if (dir !== root && (entry.isDirectory() || entry.isFile())) found.push(full);
      } else if (entry.isDirectory() && !SCAN_SKIPPED_DIRS.has(entry.name)) {
        queue.push(full);
      }
    }
  }
  nestedScans.set(root, { at: now, maxDirs, entries: found });
  return found;
}

/** The real directory a `.git` file points to (`gitdir: <path>`), or undefined. */
function gitdirOf(entry: string): string | undefined {
  if (path.basename(entry) !== '.git' || entryKind(entry) !== 'file') return undefined;
  let text: string;
  try {
    text = readFileSync(entry, 'utf8').slice(0, GITFILE_MAX_CHARS);
  } catch {
    return undefined;
  }
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  if (match === null || match[1] === undefined) return undefined;
  return realpathOrUndefined(path.resolve(path.dirname(entry), match[1]));
}

function entryKind(target: string): 'dir' | 'file' | 'link' | 'missing' | 'other' {
  try {
    const stat = lstatSync(target);
    if (stat.isSymbolicLink()) return 'link';
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}
