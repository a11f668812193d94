// The directory walk `glob` and `grep` share: it stays inside the read policy while the program changes
// the tree under it (docs/file-tools.md). Directories are listed and entered only through descriptors,
// symlinks are followed only through the path resolver, and `.gitignore` files are read through the
// directory's descriptor and applied as git does (gitignore.ts).

import * as fs from 'node:fs';
import path from 'node:path';

import { MAX_GITIGNORE_BYTES } from './limits.js';
import { describeFsError, throwIfAborted } from './fs-errors.js';
import { IgnoreStack, parseGitignore } from './gitignore.js';
import type { OpenedPath, PathResolver } from './path-resolver.js';
import { DIR_FLAGS, LEAF_FLAGS, at, closeQuietly, isLinkRefusal } from './safe-fs.js';

/** Code-unit order, the same on every machine (no locale). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * An opened directory of the walk. The walk holds it while it lists the directory; whoever needs its
 * descriptor longer (grep's reads in a worker thread) retains it and releases it when done. The
 * descriptor is closed at the last release, never while anyone may still open a name through it.
 */
export interface DirHandle {
  readonly fd: number;
  /** The kernel's name for the directory when it was opened. */
  readonly real: string;
  retain(): void;
  release(): void;
}

/** A regular file found by a walk. */
export interface WalkedFile {
  /** Absolute path under the walk root as given (symlinks kept), for display. */
  readonly absolute: string;
  /** `/`-separated path relative to the walk root, for matching. */
  readonly relative: string;
  /** The directory that holds the entry; `name` opened through `dir.fd` with O_NOFOLLOW is the file. */
  readonly dir: DirHandle;
  readonly name: string;
  /** True when the entry is a symlink (followed to a regular file inside the read policy): open it with `open()`. */
  readonly linked: boolean;
  /**
   * Opens the file for reading through its directory's descriptor, following a symlink only the safe
   * way; undefined when it is gone or now leads outside the read policy. Valid while `dir` is held;
   * the caller closes the descriptor.
   */
  open(): number | undefined;
}

/** `.gitignore` rules that apply to a walk, with the walk root's place among them. */
export interface WalkIgnore {
  /** The rules of the directories above the walk root (outermost first); `IgnoreStack.empty` for none. */
  readonly stack: IgnoreStack;
  /** The walk root relative to the directory of the outermost file of `stack` (`''` when it is that directory). */
  readonly base: string;
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
  /** Directory names to enter even when a `.gitignore` excludes them (the pattern names them). */
  readonly keepNames?: ReadonlySet<string>;
  /** Return false to skip a directory (relative to the root). */
  readonly enter?: (relativeDir: string) => boolean;
  /** Apply `.gitignore` files: those above the root given here, and each one found on the way. */
  readonly ignore?: WalkIgnore;
}

/**
 * Yields the regular files below `root` depth-first, entries in name order, as runs of files that
 * share a directory (one yield per run, not per file). Lists and enters directories only through
 * descriptors opened with O_NOFOLLOW from their parent's descriptor (docs/file-tools.md), so a
 * directory swapped for a symlink mid-walk is followed only the safe way; follows symlinks only to
 * targets inside the read policy and never into a directory already on the current path. Every
 * descriptor the walk opened is closed when the walk ends or is abandoned and no one retains it.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<readonly WalkedFile[]> {
  const { root, resolver, signal, tool, skipNames, keepNames, enter, ignore } = options;
  if (root.fd === undefined) return;
  const ancestors = new Set<string>([root.real]);
  const prefix = ignore === undefined || ignore.base === '' ? '' : `${ignore.base}/`;

  async function* walkDir(
    dir: DirHandle,
    absolute: string,
    relative: string,
    rules: IgnoreStack | undefined,
  ): AsyncGenerator<readonly WalkedFile[]> {
    throwIfAborted(signal, tool);
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true });
    } catch (error) {
      // The root must be readable; a subdirectory that vanished or refuses us is just skipped.
      if (relative === '') throw describeFsError(error, root.display, 'search');
      return;
    }
    entries.sort((a, b) => compareStrings(a.name, b.name));
    if (rules !== undefined && entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
      const text = readSmallFileAt(dir.fd, '.gitignore');
      if (text !== undefined) rules = rules.with(parseGitignore(text, relative === '' ? (ignore?.base ?? '') : prefix + relative));
    }
    const ignored = (childRelative: string, isDirectory: boolean, name: string): boolean =>
      rules !== undefined && !(isDirectory && keepNames?.has(name) === true) && rules.ignores(prefix + childRelative, isDirectory);

    let run: WalkedFile[] = [];
    const file = (name: string, childAbsolute: string, childRelative: string, linked: boolean): WalkedFile => ({
      absolute: childAbsolute,
      relative: childRelative,
      dir,
      name,
      linked,
      open: () => openFileAt(resolver, dir.fd, dir.real, name),
    });
    for (const entry of entries) {
      const name = entry.name;
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      if (entry.isFile()) {
        if (!ignored(childRelative, false, name)) run.push(file(name, path.join(absolute, name), childRelative, false));
        continue;
      }
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      if (entry.isDirectory() && (skipNames.has(name) || (enter !== undefined && !enter(childRelative)))) continue;
      if (entry.isDirectory() && ignored(childRelative, true, name)) continue;
      throwIfAborted(signal, tool);
      const child = openChild(resolver, dir.fd, dir.real, name);
      if (child === undefined) continue;
      const childAbsolute = path.join(absolute, name);
      if (child.isFile) {
        closeQuietly(child.fd);
        if (!ignored(childRelative, false, name)) run.push(file(name, childAbsolute, childRelative, true));
        continue;
      }
      const handle = dirHandle(child.fd, child.real, true);
      try {
        if (skipNames.has(name) || ancestors.has(child.real)) continue;
        if (enter !== undefined && !enter(childRelative)) continue;
        if (entry.isSymbolicLink() && ignored(childRelative, true, name)) continue;
        if (run.length > 0) {
          yield run;
          run = [];
        }
        ancestors.add(child.real);
        try {
          yield* walkDir(handle, childAbsolute, childRelative, rules);
        } finally {
          ancestors.delete(child.real);
        }
      } finally {
        handle.release();
      }
    }
    if (run.length > 0) yield run;
  }

  // The root's descriptor belongs to `root` (its owner closes it): the handle never closes it.
  yield* walkDir(dirHandle(root.fd, root.real, false), root.absolute, '', ignore?.stack);
}

/** A handle held once by its creator; `owned` handles close their descriptor at the last release. */
function dirHandle(fd: number, real: string, owned: boolean): DirHandle {
  let refs = 1;
  return {
    fd,
    real,
    retain() {
      refs++;
    },
    release() {
      if (--refs === 0 && owned) closeQuietly(fd);
    },
  };
}

/**
 * The `.gitignore` rules of the directories from the workspace down to the parent of `root`, when
 * `root` is inside the workspace (git applies a repository's outer `.gitignore` files to its subdirectories
 * too); each is read through a descriptor the resolver opened and checked.
 */
export function parentIgnores(resolver: PathResolver, root: OpenedPath): WalkIgnore {
  const relative = path.relative(resolver.cwd, root.absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return { stack: IgnoreStack.empty, base: '' };
  const parts = relative.split(path.sep);
  let stack = IgnoreStack.empty;
  for (let depth = 0; depth < parts.length; depth++) {
    const dir = path.join(resolver.cwd, ...parts.slice(0, depth));
    let opened: OpenedPath | undefined;
    try {
      opened = resolver.resolve(dir, 'read');
      if (opened.fd === undefined || opened.stat?.isDirectory() !== true) continue;
      const text = readSmallFileAt(opened.fd, '.gitignore');
      if (text !== undefined) stack = stack.with(parseGitignore(text, parts.slice(0, depth).join('/')));
    } catch {
      // An ancestor we may not read contributes no rules.
    } finally {
      opened?.close();
    }
  }
  return { stack, base: parts.join('/') };
}

/** The text of the regular file `name` in `dirFd` (not through a symlink), or undefined when absent or too large. */
function readSmallFileAt(dirFd: number, name: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(at(dirFd, name), LEAF_FLAGS);
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.allocUnsafe(MAX_GITIGNORE_BYTES + 1);
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return length > MAX_GITIGNORE_BYTES ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeQuietly(fd);
  }
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
