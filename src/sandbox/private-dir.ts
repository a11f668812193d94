// The host's private state dir (docs/security.md, "Host-private state"): the spawner's socket dir,
// the probe cache, the probe's cwd, the seccomp filter's temp file, the persistent bash's dir (its
// shell copy and pipes) and the run dirs of non-bwrap runs
// all live in one directory, `<temp dir>/ptc-<uid>`, that no sandboxed program can write. Verified on
// every use: a real directory (not a symlink, at its real path), owned by this uid, mode exactly
// 0700, and not inside any writable root (workspace or --allow-write) of any sandboxed launch this
// process planned. A `TMPDIR` inside such a root (the common `TMPDIR=./tmp`) is not used: the root
// moves to the next candidate ($XDG_RUNTIME_DIR, /tmp, /var/tmp, /dev/shm) and says so once on
// stderr (once per move). A pre-existing dir that fails the checks (another user's, a symlink, a loose mode) is never
// used: a fresh mkdtemp dir next to it is made instead.

import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { ownerTag } from './owner.js';
import { isWithin } from './policy.js';

/** The kinds of dirs made in the private root; the stale sweep knows them by these names. */
export type PrivateDirKind = 'run' | 'spawner' | 'probe' | 'seccomp' | 'shell';
export const PRIVATE_DIR_KINDS: readonly PrivateDirKind[] = ['run', 'spawner', 'probe', 'seccomp', 'shell'];

const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
/** Every writable root of every sandboxed launch planned so far (real paths). */
const writable = new Set<string>();
/** Roots found inside a writable root: never used again by this process (a program may have written there). */
const abandoned = new Set<string>();
let current: string | undefined;
let pinned: string | undefined;
/** The root last announced on stderr: each move is said once. */
let told: string | undefined;

/**
 * Records the writable roots of a launch about to be planned (call before anything reads or makes
 * private state for it). A current root inside one is given up at once; the next use picks another.
 */
export function excludeWritableRoots(roots: readonly string[]): void {
  for (const root of roots) {
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      real = resolve(root);
    }
    // A run's own dir inside the root (non-bwrap runs) exposes only itself; not kept, or the set
    // would grow by one per run.
    if (current !== undefined && real !== current && isWithin(real, current)) continue;
    writable.add(real);
    if (current !== undefined && isWithin(current, real)) {
      abandoned.add(current);
      current = undefined;
    }
  }
}

/** True when `path` lies in (or is) a writable root of a launch of this process. */
export function insideWritableRoot(path: string): string | undefined {
  for (const root of writable) if (isWithin(path, root)) return root;
  return undefined;
}

/**
 * The verified private root, made if needed. Throws CONFIG when no candidate qualifies (every one
 * lies inside a writable root, or none can be made).
 */
export function privateRoot(): string {
  if (pinned !== undefined) return pinned;
  if (current !== undefined && usable(current)) return current;
  if (current !== undefined) abandoned.add(current);
  current = undefined;
  const reasons: string[] = [];
  const first = candidateBases()[0];
  for (const base of candidateBases()) {
    const dir = join(base, `ptc-${uid}`);
    const inside = insideWritableRoot(dir);
    if (inside !== undefined) {
      reasons.push(`${dir} lies inside the writable path ${inside}`);
      continue;
    }
    const made = abandoned.has(dir) ? undefined : ensure(dir);
    const chosen = made ?? fresh(base);
    if (chosen === undefined) {
      reasons.push(`${dir} is not a directory of this user with mode 0700, and none could be made next to it`);
      continue;
    }
    if (made === undefined) reasons.push(`${dir} is not a directory of this user with mode 0700`);
    current = chosen;
    if (chosen !== join(first ?? '', `ptc-${uid}`) && told !== chosen) {
      told = chosen;
      process.stderr.write(`ptc: host-private state (spawner socket, probe cache, run dirs) is kept in ${chosen}: ${reasons.join('; ')}.\n`);
    }
    return chosen;
  }
  throw new ConfigError(
    `No directory for the host's private state: ${reasons.join('; ') || 'no temp dir exists'}. ` +
      'Set TMPDIR to a directory outside the workspace and every --allow-write path.',
  );
}

/**
 * The root as it stands, without making anything: the chosen one, else the first candidate's
 * `ptc-<uid>` when it already exists and passes the checks (the stale sweep reads it; it must not
 * make a root before any launch said which paths are writable).
 */
export function existingPrivateRoot(): string | undefined {
  if (pinned !== undefined) return pinned;
  if (current !== undefined && usable(current)) return current;
  for (const base of candidateBases()) {
    const dir = join(base, `ptc-${uid}`);
    if (insideWritableRoot(dir) === undefined && usable(dir)) return dir;
  }
  return undefined;
}

/** A fresh dir `<root>/<kind>-<owner tag>-<random>` (mode 0700), for the stale sweep to find by owner. */
export function makePrivateDir(kind: PrivateDirKind): string {
  return mkdtempSync(join(privateRoot(), `${kind}-${ownerTag()}-`));
}

/**
 * Tests only (the controls of test/integration/hostile-host-state.test.ts): use `path` as the root
 * without any check, as the code before this module did with the temp dir; undefined restores it.
 */
export function pinPrivateRootUnchecked(path: string | undefined): void {
  pinned = path;
}

/** The temp dir, then $XDG_RUNTIME_DIR, /tmp, /var/tmp and /dev/shm: existing real paths, each once. */
function candidateBases(): string[] {
  const out: string[] = [];
  const runtime = process.env['XDG_RUNTIME_DIR'];
  for (const given of [tmpdir(), runtime !== undefined && isAbsolute(runtime) ? runtime : undefined, '/tmp', '/var/tmp', '/dev/shm']) {
    if (given === undefined || given === '') continue;
    try {
      const real = realpathSync(resolve(given));
      if (!out.includes(real)) out.push(real);
    } catch {
      // Missing: not a candidate.
    }
  }
  return out;
}

/** `dir` made (mode 0700) or found, when it passes the checks; undefined when it does not. */
function ensure(dir: string): string | undefined {
  let created = false;
  try {
    mkdirSync(dir, { mode: 0o700 });
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  return verify(dir, created) ? dir : undefined;
}

/** A new mkdtemp dir next to a squatted one (not shared with other hosts, which is only slower). */
function fresh(base: string): string | undefined {
  try {
    const dir = mkdtempSync(join(base, `ptc-${uid}-`));
    return verify(dir, true) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The checks of every use: still at its real path, still ours and 0700, still outside every writable root. */
function usable(dir: string): boolean {
  return !abandoned.has(dir) && insideWritableRoot(dir) === undefined && verify(dir, false);
}

/**
 * Opens `dir` without following a symlink and checks the open directory (fstat) against the path
 * (lstat): the same inode, a directory of this uid, mode exactly 0700, and the path is its own real
 * path (no component was swapped for a symlink). `created`: this process just made it, so a mode a
 * umask narrowed is set to 0700 through the fd.
 */
function verify(dir: string, created: boolean): boolean {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isDirectory() || opened.uid !== uid) return false;
    if (created && (opened.mode & 0o7777) !== 0o700) fchmodSync(fd, 0o700);
    const mode = fstatSync(fd).mode & 0o7777;
    const link = lstatSync(dir);
    return mode === 0o700 && link.isDirectory() && link.dev === opened.dev && link.ino === opened.ino && realpathSync(dir) === dir;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
