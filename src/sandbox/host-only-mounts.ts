// Keeping the host-only directories (host-only.ts) out of every sandbox (docs/security.md,
// "Host-only directories"). bwrap: each one a bind would show gets an empty read-only tmpfs over
// it, and the directory is made first when missing, since a bind shows entries made after the
// sandbox started while a mount point stays what it was. node-permission cannot hide a directory
// inside an allowed path, so a launch that would allow one is refused. A path that is, or lies
// inside, a host-only directory is refused under both.

import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { HostBind } from './bwrap.js';
import { hostOnlyDirs } from './host-only.js';
import { isWithin, realpathOrUndefined } from './policy.js';

/** A path a launch asked for or would allow, with what it is (for messages). */
export interface LabelledPath {
  readonly path: string;
  /** e.g. `workspace`, `--allow-read path`, `bound path`. */
  readonly what: string;
}

const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
const WHAT_IT_IS = "ptc's host-only directory (exec servers' sockets and tokens, docs/exec-server.md)";

/**
 * The destinations bwrap must hide for a launch with these binds: for each host-only dir that a
 * bind's source contains, where that bind shows it. Makes a missing dir (mode 0700; an existing one
 * is left as it is, whoever owns it: it is only a mount point here). Throws CONFIG when a bind's
 * source or a `requested` path (as the policy gave it, before realpath) is or lies inside a
 * host-only dir, when a covered dir cannot be made, and when one of this user's own is not a
 * directory (a symlink, a file: the exec server would take a directory made there later).
 */
export function hostOnlyMasks(binds: readonly HostBind[], requested: readonly LabelledPath[], dirs: readonly string[] = hostOnlyDirs()): string[] {
  const masks = new Set<string>();
  for (const dir of dirs) {
    const places = placesOf(dir);
    refuseInside([...requested, ...binds.map((bind) => ({ path: bind.source, what: 'bound path' }))], dir, places);
    // Sources are real paths: only the dir's real location can lie inside one.
    const at = places[places.length - 1] as string;
    const covering = binds.filter((bind) => isWithin(at, bind.source));
    if (covering.length === 0 || !readyMountPoint(dir, covering[0] as HostBind)) continue;
    for (const bind of covering) masks.add(path.join(bind.dest, path.relative(bind.source, at)));
  }
  return [...masks];
}

/**
 * Refuses (CONFIG) a node-permission launch that would allow reading or writing a path that is,
 * contains or lies inside a host-only dir, whether or not the dir exists now. `allowed` are the
 * paths of the permission flags, `requested` the policy's paths as given.
 */
export function refuseHostOnlyAllowed(allowed: readonly LabelledPath[], requested: readonly LabelledPath[], dirs: readonly string[] = hostOnlyDirs()): void {
  for (const dir of dirs) {
    const places = placesOf(dir);
    for (const entry of [...requested, ...allowed]) {
      const normal = path.resolve(entry.path);
      const relation = places.some((place) => normal === place)
        ? 'is'
        : places.some((place) => isWithin(normal, place))
          ? 'lies inside'
          : places.some((place) => isWithin(place, normal))
            ? 'contains'
            : undefined;
      if (relation === undefined) continue;
      throw new ConfigError(
        `The node-permission sandbox would let the program reach ${entry.path} (${entry.what}), which ${relation} ${dir}, ${WHAT_IT_IS}; ` +
          "no sandboxed program may see it, and Node's permission model cannot hide a directory inside an allowed path. " +
          'Install bubblewrap (`--sandbox required` insists on it), or use a workspace and --allow-read/--allow-write paths that do not contain it.',
      );
    }
  }
}

/** The dir as named and where it really is (its parent resolved; the dir itself is not followed). */
function placesOf(dir: string): string[] {
  const named = path.resolve(dir);
  const parent = path.dirname(named);
  const located = path.join(realpathOrUndefined(parent) ?? parent, path.basename(named));
  return located === named ? [named] : [named, located];
}

function refuseInside(paths: readonly LabelledPath[], dir: string, places: readonly string[]): void {
  for (const entry of paths) {
    const normal = path.resolve(entry.path);
    const place = places.find((p) => isWithin(normal, p));
    if (place === undefined) continue;
    const where = normal === place ? `is ${dir},` : `lies inside ${dir},`;
    throw new ConfigError(
      `The sandbox ${entry.what} ${entry.path} ${where} ${WHAT_IT_IS}; no sandboxed program may see it. Allow a path outside it.`,
    );
  }
}

/**
 * Makes sure `dir` is a directory a tmpfs can be mounted on. False when there is nothing to hide: a
 * non-directory of another user, which the exec server never uses and only its owner can replace.
 */
function readyMountPoint(dir: string, bind: HostBind): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(
        `${dir}, ${WHAT_IT_IS}, lies inside the bound path ${bind.source} and cannot be made to hide it (${(error as Error).message}). ` +
          `Allow a path that does not contain it, or make ${dir} yourself (a directory, mode 0700).`,
      );
    }
  }
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    throw new ConfigError(`${dir}, ${WHAT_IT_IS}, lies inside the bound path ${bind.source} and cannot be checked (${(error as Error).message}).`);
  }
  if (stat.isDirectory()) return true;
  if (uid >= 0 && stat.uid !== uid) return false;
  throw new ConfigError(
    `${dir}, ${WHAT_IT_IS}, lies inside the bound path ${bind.source} but is not a directory, so it cannot be hidden. Remove it (ptc makes the directory).`,
  );
}
