// The directory walk `glob` and `grep` share: it stays inside the read policy while the program changes
// the tree under it (docs/file-tools.md). Directories are listed and entered only through descriptors,
// and symlinks are followed only through the path resolver.

import * as fs from 'node:fs';
import path from 'node:path';

import { describeFsError, throwIfAborted } from './fs-errors.js';
import type { OpenedPath, PathResolver } from './path-resolver.js';
import { DIR_FLAGS, LEAF_FLAGS, at, closeQuietly, isLinkRefusal } from './safe-fs.js';

/** Code-unit order, the same on every machine (no locale). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A regular file found by a walk. */
export interface WalkedFile {
  /** Absolute path under the walk root as given (symlinks kept), for display. */
  readonly absolute: string;
  /** `/`-separated path relative to the walk root, for matching. */
  readonly relative: string;
  /**
   * Opens the file for reading through its directory's descriptor, following a symlink only the safe
   * way; undefined when it is gone or now leads outside the read policy. Valid until the walk moves
   * on; the caller closes the descriptor.
   */
  open(): number | undefined;
}

export interface WalkOptions {
  /** An opened directory the policy accepted. */
  readonly root: OpenedPath;
  /** Follows symlinks found on the way; targets outside the read roots are not followed or listed. */
  readonly resolver: PathResolver;
  readonly signal: AbortSignal;
  /** Tool name for the abort message. */
  readonly tool: string;
  /** Directory names not to enter. */
  readonly skipNames: ReadonlySet<string>;
  /** Return false to skip a directory (relative to the root). */
  readonly enter?: (relativeDir: string) => boolean;
}

/**
 * Yields the regular files below `root` depth-first, entries in name order. Lists and enters
 * directories only through descriptors opened with O_NOFOLLOW from their parent's descriptor
 * (docs/file-tools.md), so a directory swapped for a symlink mid-walk is followed only the safe way;
 * follows symlinks only to targets inside the read policy and never into a directory already on the
 * current path. Every descriptor is closed when the walk ends or is abandoned.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<WalkedFile> {
  const { root, resolver, signal, tool, skipNames, enter } = options;
  if (root.fd === undefined) return;
  const ancestors = new Set<string>([root.real]);

  async function* walkDir(dirFd: number, dirReal: string, absolute: string, relative: string): AsyncGenerator<WalkedFile> {
    throwIfAborted(signal, tool);
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(`/proc/self/fd/${dirFd}`, { withFileTypes: true });
    } catch (error) {
      // The root must be readable; a subdirectory that vanished or refuses us is just skipped.
      if (relative === '') throw describeFsError(error, root.display, 'search');
      return;
    }
    entries.sort((a, b) => compareStrings(a.name, b.name));
    for (const entry of entries) {
      throwIfAborted(signal, tool);
      const name = entry.name;
      const childAbsolute = path.join(absolute, name);
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      if (entry.isFile()) {
        yield { absolute: childAbsolute, relative: childRelative, open: () => openFileAt(resolver, dirFd, dirReal, name) };
        continue;
      }
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      if (entry.isDirectory() && (skipNames.has(name) || (enter !== undefined && !enter(childRelative)))) continue;
      const child = openChild(resolver, dirFd, dirReal, name);
      if (child === undefined) continue;
      if (child.isFile) {
        closeQuietly(child.fd);
        yield { absolute: childAbsolute, relative: childRelative, open: () => openFileAt(resolver, dirFd, dirReal, name) };
        continue;
      }
      try {
        if (skipNames.has(name) || ancestors.has(child.real)) continue;
        if (enter !== undefined && !enter(childRelative)) continue;
        ancestors.add(child.real);
        try {
          yield* walkDir(child.fd, child.real, childAbsolute, childRelative);
        } finally {
          ancestors.delete(child.real);
        }
      } finally {
        closeQuietly(child.fd);
      }
    }
  }

  yield* walkDir(root.fd, root.real, root.absolute, '');
}

/** Opens the entry `name` of a walked directory: a plain directory directly, anything else through the resolver. */
function openChild(
  resolver: PathResolver,
  dirFd: number,
  dirReal: string,
  name: string,
): { fd: number; real: string; isFile: boolean } | undefined {
  try {
    const fd = fs.openSync(at(dirFd, name), DIR_FLAGS);
    return { fd, real: path.join(dirReal, name), isFile: false };
  } catch (error) {
    if (!isLinkRefusal(error)) return undefined;
  }
  // A symlink (or swapped for one since the listing): follow it only inside the read policy.
  const followed = resolver.follow(dirFd, dirReal, name);
  if (followed === undefined) return undefined;
  if (followed.stat.isDirectory()) return { fd: followed.fd, real: followed.real, isFile: false };
  if (followed.stat.isFile()) return { fd: followed.fd, real: followed.real, isFile: true };
  closeQuietly(followed.fd);
  return undefined;
}

function openFileAt(resolver: PathResolver, dirFd: number, dirReal: string, name: string): number | undefined {
  try {
    return fs.openSync(at(dirFd, name), LEAF_FLAGS);
  } catch (error) {
    if (!isLinkRefusal(error)) return undefined;
  }
  return resolver.follow(dirFd, dirReal, name)?.fd;
}
