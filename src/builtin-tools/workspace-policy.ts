// The path policy shared by the file tools: resolve a path the model gave, follow symlinks, and
// refuse it unless its real location lies inside a readable (or writable) root. Plus the small
// helpers every file tool needs: display paths, abort checks, fs errors turned into clear messages.

import * as fs from 'node:fs/promises';
import path from 'node:path';

import { AbortedError, HarnessError, PermissionDeniedError, ToolFailedError } from '../errors.js';

/** Where the file tools may look and write. Relative entries resolve against `cwd`. */
export interface FileToolOptions {
  /** The workspace; readable and writable. */
  readonly cwd: string;
  /** Extra readable paths (`--allow-read`). */
  readonly allowRead?: readonly string[];
  /** Extra readable and writable paths (`--allow-write`). */
  readonly allowWrite?: readonly string[];
}

export type PathAccess = 'read' | 'write';

/** A path the policy accepted. */
export interface ResolvedPath {
  /** The path as given, made absolute against cwd with `.` and `..` folded (symlinks kept). */
  readonly absolute: string;
  /**
   * Symlinks resolved. For a path that does not exist, the real path of its nearest existing
   * ancestor joined with the missing rest; the file tools read and write this path.
   */
  readonly real: string;
  /** False when nothing exists at `real` yet. */
  readonly exists: boolean;
  /** How outputs and messages show the path: relative to cwd when inside it, else absolute. */
  readonly display: string;
}

/** The real paths of the roots of one access kind, computed once per tool call. */
export interface PolicyRoots {
  readonly access: PathAccess;
  /** Absolute roots as configured, for messages. */
  readonly configured: readonly string[];
  /** Their real paths, for checks. */
  readonly real: readonly string[];
}

export interface WorkspacePolicy {
  /** Absolute workspace directory (as configured, not symlink-resolved). */
  readonly cwd: string;
  /** Resolves `userPath` and throws PermissionDeniedError when it lies outside the `access` roots. */
  resolve(userPath: string, access: PathAccess): Promise<ResolvedPath>;
  /** The current real roots for `access` (a root may be created or re-linked between calls). */
  roots(access: PathAccess): Promise<PolicyRoots>;
  /** Relative to cwd (with `/`) when `absolute` is inside it, else `absolute` itself. */
  display(absolute: string): string;
}

const MAX_SYMLINK_HOPS = 40;

export function createWorkspacePolicy(options: FileToolOptions): WorkspacePolicy {
  const cwd = path.resolve(options.cwd);
  const allowRead = (options.allowRead ?? []).map((p) => path.resolve(cwd, p));
  const allowWrite = (options.allowWrite ?? []).map((p) => path.resolve(cwd, p));
  const configured: Record<PathAccess, readonly string[]> = {
    read: unique([cwd, ...allowRead, ...allowWrite]),
    write: unique([cwd, ...allowWrite]),
  };

  const display = (absolute: string): string => {
    if (isWithin(absolute, cwd)) {
      const rel = path.relative(cwd, absolute);
      return rel === '' ? '.' : rel.split(path.sep).join('/');
    }
    return absolute;
  };

  const roots = async (access: PathAccess): Promise<PolicyRoots> => {
    const real = await Promise.all(configured[access].map(async (root) => (await realPathOf(root, root)).real));
    return { access, configured: configured[access], real };
  };

  const resolve = async (userPath: string, access: PathAccess): Promise<ResolvedPath> => {
    const absolute = path.resolve(cwd, userPath);
    const shown = display(absolute);
    const [target, allowed] = await Promise.all([realPathOf(absolute, shown), roots(access)]);
    if (!isWithinAny(target.real, allowed.real)) {
      const throughLink = isWithinAny(absolute, allowed.configured);
      const where = throughLink ? `resolves through a symbolic link to ${target.real}, which is` : 'is';
      const verb = access === 'read' ? 'read' : 'write to';
      throw new PermissionDeniedError(
        `Permission denied: "${userPath}" ${where} outside the paths this tool may ${verb}: ` +
          `${allowed.configured.join(', ')}. Use a path inside the workspace, or ask the user to re-run ` +
          `with --allow-${access} <dir> to widen the ${access} policy.`,
      );
    }
    return { absolute, real: target.real, exists: target.exists, display: shown };
  };

  return { cwd, resolve, roots, display };
}

/** True when `candidate` is `root` or lies below it (both absolute, normalized). */
export function isWithin(candidate: string, root: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

export function isWithinAny(candidate: string, roots: readonly string[]): boolean {
  return roots.some((root) => isWithin(candidate, root));
}

/**
 * Real path of `absolute`. A missing path resolves through its nearest existing ancestor, and a
 * dangling symlink through its target, so a file about to be created is judged by where it would land.
 */
async function realPathOf(absolute: string, shown: string, hops = 0): Promise<{ real: string; exists: boolean }> {
  try {
    return { real: await fs.realpath(absolute), exists: true };
  } catch (error) {
    if (!isMissing(error)) throw describeFsError(error, shown, 'resolve');
  }
  let link: string | undefined;
  try {
    const stat = await fs.lstat(absolute);
    if (stat.isSymbolicLink()) link = await fs.readlink(absolute);
  } catch (error) {
    if (!isMissing(error)) throw describeFsError(error, shown, 'resolve');
  }
  const parent = path.dirname(absolute);
  if (link !== undefined) {
    if (hops >= MAX_SYMLINK_HOPS) throw new ToolFailedError(`Cannot resolve ${shown}: too many levels of symbolic links.`);
    // The kernel resolves a link's text against the link's real directory, so do the same.
    const base = (await realPathOf(parent, shown, hops + 1)).real;
    return realPathOf(path.resolve(base, link), shown, hops + 1);
  }
  if (parent === absolute) return { real: absolute, exists: false };
  const up = await realPathOf(parent, shown, hops);
  return { real: path.join(up.real, path.basename(absolute)), exists: false };
}

function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Turns a filesystem error into a TOOL_FAILED error whose message says what to do next. */
export function describeFsError(error: unknown, shown: string, action: string): HarnessError {
  if (error instanceof HarnessError) return error;
  const code = errnoCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ENOENT':
      return new ToolFailedError(`Cannot ${action} ${shown}: it does not exist. Use glob to find the right path.`, {
        cause: error,
      });
    case 'ENOTDIR':
      return new ToolFailedError(
        `Cannot ${action} ${shown}: a parent of this path is a file, not a directory. Check the path with glob.`,
        { cause: error },
      );
    case 'EISDIR':
      return new ToolFailedError(`Cannot ${action} ${shown}: it is a directory. Use glob to list its files.`, {
        cause: error,
      });
    case 'EEXIST':
      return new ToolFailedError(
        `Cannot ${action} ${shown}: a file is in the way where a directory is needed. Check the path with glob.`,
        { cause: error },
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolFailedError(`Cannot ${action} ${shown}: the operating system denied access (${code}).`, {
        cause: error,
      });
    default:
      return new ToolFailedError(`Cannot ${action} ${shown}: ${detail}`, { cause: error });
  }
}

/** Throws ABORTED when the call was cancelled; long walks call this between steps. */
export function throwIfAborted(signal: AbortSignal, tool: string): void {
  if (signal.aborted) throw new AbortedError(`${tool} was aborted before it finished.`);
}

/** True when the bytes look binary: a NUL byte among them. Callers pass the first few KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.includes(0);
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
