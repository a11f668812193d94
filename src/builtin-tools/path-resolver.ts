// How the file tools turn a path the model gave into an opened object inside the workspace policy,
// without a window between the check and the use (docs/file-tools.md). The walk opens one component at
// a time from an opened directory with O_NOFOLLOW, reads a symlink instead of letting the kernel follow
// it, and checks the opened descriptor (not the path) against the policy roots. The tools then read,
// write and rename only through the descriptors it returns.

import * as fs from 'node:fs';
import path from 'node:path';

import { PermissionDeniedError, ToolFailedError } from '../errors.js';
import { MAX_SYMLINK_HOPS } from './limits.js';
import { isProtectedUnder, isWithin, policyRoots, type WorkspacePolicy } from '../sandbox/index.js';
import { describeFsError } from './fs-errors.js';
import { DIR_FLAGS, LEAF_FLAGS, at, closeQuietly, errnoCode, isLinkRefusal, readLinkAt, realPathOfFd } from './safe-fs.js';

export type PathAccess = 'read' | 'write';

/** What every file tool is created with: the harness's one resolved policy. */
export interface FileToolOptions {
  readonly policy: WorkspacePolicy;
}

/** A path the policy accepted, with the descriptors to use it through. Call `close()` when done. */
export interface OpenedPath {
  /** The path as given, made absolute against the workspace with `.` and `..` folded. */
  readonly absolute: string;
  /** How outputs and messages show the path: relative to the workspace when inside it, else absolute. */
  readonly display: string;
  /** Where the object is (or would be created): the kernel's name for what was opened. */
  readonly real: string;
  /** The object itself, opened read-only without following a final symlink; undefined when missing. */
  readonly fd: number | undefined;
  /** `fstat` of `fd`. */
  readonly stat: fs.Stats | undefined;
  /**
   * The directory holding the object, checked against the policy; with `name`, where a write creates
   * its temp file and renames. Undefined when the path names a base directory (e.g. the workspace).
   */
  readonly parentFd: number | undefined;
  readonly name: string | undefined;
  /** Closes every descriptor this result holds. */
  close(): void;
}

/** An object reached from a directory entry during a walk (glob, grep). */
export interface FollowedEntry {
  readonly fd: number;
  readonly stat: fs.Stats;
  readonly real: string;
}

export interface ResolveOptions {
  /** Create missing parent directories (write). Each is created inside a checked directory descriptor. */
  readonly createParents?: boolean;
  /**
   * A person approved this write although it targets a protected path (docs/sandbox.md, "Protected
   * paths"); without it such a write throws ProtectedPathError before anything is created.
   */
  readonly allowProtected?: boolean;
  /**
   * Real directories a `read` may also reach: the running session's spill directory (docs/sessions.md,
   * "Spill"). Ignored for writes; the sandbox never sees them.
   */
  readonly extraReadRoots?: readonly string[];
}

/** A write to a protected path that no person approved (PERMISSION_DENIED). */
export class ProtectedPathError extends PermissionDeniedError {
  /** The path as shown (relative to the workspace when inside it). */
  readonly display: string;

  constructor(userPath: string, display: string) {
    super(
      `Permission denied: "${userPath}" is a protected path (every .git and .ptc, and the paths given with --protect, ` +
        'are read-only for programs and written by the file tools only when a person approves that exact call).',
    );
    this.name = 'ProtectedPathError';
    this.display = display;
  }
}

export interface PathResolver {
  /** The workspace, a real absolute path. */
  readonly cwd: string;
  /** Opens `userPath` for `access`; PERMISSION_DENIED when it lies (or leads) outside the roots. */
  resolve(userPath: string, access: PathAccess, options?: ResolveOptions): OpenedPath;
  /**
   * Follows the entry `name` of the directory `dirFd` (real path `dirReal`) the same safe way, for
   * reading. Undefined when it dangles, loops, or leads outside the read roots: a walk skips it.
   */
  follow(dirFd: number, dirReal: string, name: string): FollowedEntry | undefined;
  /** The real roots for `access`. */
  roots(access: PathAccess): readonly string[];
  /** Relative to the workspace (with `/`) when `absolute` is inside it, else `absolute` itself. */
  display(absolute: string): string;
}

interface Frame {
  readonly fd: number;
  /** The directory's path when it was reached; for `..` above the walk's start and for messages. */
  readonly path: string;
  /** False for a caller's descriptor the walk must not close. */
  readonly owned: boolean;
}

type WalkEnd =
  | { readonly kind: 'found'; readonly frames: Frame[]; readonly name: string | undefined; readonly fd: number }
  | { readonly kind: 'missing'; readonly frames: Frame[]; readonly rest: readonly string[] };

export function createPathResolver(options: FileToolOptions): PathResolver {
  const { policy } = options;
  const cwd = policy.cwd;
  const allRoots = policyRoots(policy, 'read');

  const display = (absolute: string): string => {
    if (isWithin(absolute, cwd)) {
      const rel = path.relative(cwd, absolute);
      return rel === '' ? '.' : rel.split(path.sep).join('/');
    }
    return absolute;
  };

  const roots = (access: PathAccess): readonly string[] => policyRoots(policy, access);
  const inside = (real: string, access: PathAccess): boolean => roots(access).some((root) => isWithin(real, root));

  const deny = (userPath: string, absolute: string, real: string, access: PathAccess): PermissionDeniedError => {
    const configured = roots(access);
    const throughLink = configured.some((root) => isWithin(absolute, root));
    const where = throughLink ? `resolves through a symbolic link to ${real}, which is` : 'is';
    const verb = access === 'read' ? 'read' : 'write to';
    return new PermissionDeniedError(
      `Permission denied: "${userPath}" ${where} outside the paths this tool may ${verb}: ` +
        `${configured.join(', ')}. Use a path inside the workspace, or ask the user to re-run ` +
        `with --allow-${access} <dir> to widen the ${access} policy.`,
    );
  };

  /** Opens the outermost root lexically holding `target` (nothing above it is writable by a program), else `/`. */
  const openBase = (target: string): { frame: Frame; rest: string[] } => {
    const outer = allRoots.filter((root) => isWithin(target, root)).sort((a, b) => a.length - b.length)[0];
    if (outer !== undefined && !target.split('/').includes('..')) {
      let fd: number | undefined;
      try {
        fd = fs.openSync(outer, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        if (realPathOfFd(fd) === outer) return { frame: { fd, path: outer, owned: true }, rest: split(path.relative(outer, target)) };
      } catch {
        // The root is gone or was moved: the walk from `/` below reports what is really there.
      }
      closeQuietly(fd);
    }
    return { frame: { fd: fs.openSync('/', DIR_FLAGS), path: '/', owned: true }, rest: split(target) };
  };

  /**
   * The walk. `pending` components are consumed from the front; a symlink's text is spliced in front
   * of the rest (an absolute one restarts from a fresh base), `..` pops a frame. Returns the opened
   * last component with the frames leading to it, or where the path stops existing.
   */
  const walk = (frames: Frame[], pending: string[], shown: string, create?: (frame: Frame, name: string) => void): WalkEnd => {
    let hops = 0;
    let creations = 0;
    const top = (): Frame => frames[frames.length - 1] as Frame;
    const followLink = (link: string): void => {
      if (++hops > MAX_SYMLINK_HOPS) throw new ToolFailedError(`Cannot resolve ${shown}: too many levels of symbolic links.`);
      if (link.startsWith('/')) {
        for (const frame of frames.splice(0)) if (frame.owned) closeQuietly(frame.fd);
        const base = openBase(link);
        frames.push(base.frame);
        pending.unshift(...base.rest);
      } else {
        pending.unshift(...split(link));
      }
    };
    while (pending.length > 0) {
      const name = pending.shift() as string;
      if (name === '.') continue;
      if (name === '..') {
        if (frames.length > 1) {
          const frame = frames.pop() as Frame;
          if (frame.owned) closeQuietly(frame.fd);
        } else if (top().path !== '/') {
          // Above where the walk started: restart from `/` along the parent's path.
          const parent = path.dirname(top().path);
          for (const frame of frames.splice(0)) if (frame.owned) closeQuietly(frame.fd);
          frames.push({ fd: fs.openSync('/', DIR_FLAGS), path: '/', owned: true });
          pending.unshift(...split(parent));
        }
        continue;
      }
      const dir = top();
      const last = pending.length === 0;
      let fd: number;
      try {
        fd = fs.openSync(at(dir.fd, name), last ? LEAF_FLAGS : DIR_FLAGS);
      } catch (error) {
        const code = errnoCode(error);
        if (isLinkRefusal(error)) {
          const link = readLinkAt(dir.fd, name);
          if (link !== undefined) {
            followLink(link);
            continue;
          }
          if (code === 'ENOTDIR') throw describeFsError(error, shown, 'resolve');
          // Not a link (any more): the object changed under us; look again.
          if (++hops > MAX_SYMLINK_HOPS) throw describeFsError(error, shown, 'resolve');
          pending.unshift(name);
          continue;
        }
        if (code === 'ENOENT' && !last && create !== undefined) {
          // Each missing directory is made once; more means something keeps removing them.
          if (++creations > MAX_SYMLINK_HOPS + frames.length + pending.length + 1) {
            throw new ToolFailedError(`Cannot write ${shown}: its directories keep disappearing while they are created.`);
          }
          create(dir, name);
          try {
            fs.mkdirSync(at(dir.fd, name));
          } catch (mkdirError) {
            if (errnoCode(mkdirError) !== 'EEXIST') throw describeFsError(mkdirError, shown, 'write');
          }
          pending.unshift(name);
          continue;
        }
        if (code === 'ENOENT') return { kind: 'missing', frames, rest: [name, ...pending] };
        throw describeFsError(error, shown, 'resolve');
      }
      if (last) return { kind: 'found', frames, name, fd };
      frames.push({ fd, path: path.join(dir.path, name), owned: true });
    }
    // The path ends at a directory on the stack (the base itself, or after `..`): that is the object.
    const end = frames.pop() as Frame;
    const fd = end.owned ? end.fd : fs.openSync(`/proc/self/fd/${end.fd}`, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    return { kind: 'found', frames, name: undefined, fd };
  };

  const closeFrames = (frames: readonly Frame[]): void => {
    for (const frame of frames) if (frame.owned) closeQuietly(frame.fd);
  };

  const resolve = (userPath: string, access: PathAccess, resolveOptions: ResolveOptions = {}): OpenedPath => {
    const absolute = path.resolve(cwd, userPath);
    const shown = display(absolute);
    const extra = access === 'read' ? (resolveOptions.extraReadRoots ?? []) : [];
    const allowed = (real: string, a: PathAccess): boolean => inside(real, a) || (a === 'read' && extra.some((root) => isWithin(real, root)));
    const guarded = access === 'write' && resolveOptions.allowProtected !== true;
    const refuseProtected = (target: string): void => {
      if (guarded && isProtectedUnder(policy, target)) throw new ProtectedPathError(userPath, display(target));
    };
    // The path as given first, so nothing is created on the way to a protected one.
    refuseProtected(absolute);
    const base = openBase(absolute);
    const frames = [base.frame];
    const checkWritable = (frame: Frame, name: string): void => {
      const real = realPathOfFd(frame.fd);
      if (!inside(real, 'write')) throw deny(userPath, absolute, real, 'write');
      refuseProtected(path.join(real, name));
    };
    let end: WalkEnd;
    try {
      end = walk(frames, base.rest, shown, resolveOptions.createParents === true ? checkWritable : undefined);
    } catch (error) {
      closeFrames(frames);
      throw error;
    }
    const parent = end.frames[end.frames.length - 1];
    const fd = end.kind === 'found' ? end.fd : undefined;
    const close = (): void => {
      closeFrames(end.frames);
      closeQuietly(fd);
    };
    try {
      const parentReal = parent === undefined ? undefined : realPathOfFd(parent.fd);
      let real: string;
      if (end.kind === 'missing') {
        real = path.join(parentReal ?? '/', ...end.rest);
        if (parentReal === undefined || !allowed(parentReal, access)) throw deny(userPath, absolute, real, access);
      } else {
        real = realPathOfFd(end.fd);
        // A write renames inside the parent, so the parent must be writable too.
        const checked = access === 'write' && parentReal !== undefined ? parentReal : real;
        if (!allowed(real, access) || !allowed(checked, access)) throw deny(userPath, absolute, real, access);
      }
      // Where the write really lands (through any symbolic link) is what must not be protected.
      refuseProtected(real);
      const stat = fd === undefined ? undefined : fs.fstatSync(fd);
      const name = end.kind === 'found' ? end.name : end.rest.length === 1 ? end.rest[0] : undefined;
      return { absolute, display: shown, real, fd, stat, parentFd: parent?.fd, name, close };
    } catch (error) {
      close();
      throw error;
    }
  };

  const follow = (dirFd: number, dirReal: string, name: string): FollowedEntry | undefined => {
    const frames: Frame[] = [{ fd: dirFd, path: dirReal, owned: false }];
    let end: WalkEnd;
    try {
      end = walk(frames, [name], path.join(dirReal, name));
    } catch {
      closeFrames(frames);
      return undefined;
    }
    closeFrames(end.frames);
    if (end.kind === 'missing') return undefined;
    try {
      const real = realPathOfFd(end.fd);
      if (inside(real, 'read')) return { fd: end.fd, stat: fs.fstatSync(end.fd), real };
    } catch {
      // Gone between the open and the check: skip it like a dangling link.
    }
    closeQuietly(end.fd);
    return undefined;
  };

  return { cwd, resolve, follow, roots, display };
}

function split(relative: string): string[] {
  return relative.split('/').filter((part) => part !== '');
}
