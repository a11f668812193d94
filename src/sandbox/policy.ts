// Policy helpers shared by every backend: a stable pool key, the default environment, and the
// resolution of policy paths to their real locations (what a bind mount or an allowlist must name).

import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import type { SandboxPolicy } from './types.js';

/**
 * A stable string identifying everything about a policy that is fixed when a process is spawned
 * (binds, flags, environment), so a warm pool can key its children by it. Order of paths and env
 * entries does not matter; duplicates do not matter.
 */
export function policyKey(policy: SandboxPolicy): string {
  const uniqueSorted = (paths: readonly string[]): string[] => [...new Set(paths)].sort();
  const env = Object.keys(policy.env)
    .sort()
    .map((key) => [key, policy.env[key] ?? '']);
  return JSON.stringify([
    policy.cwd,
    uniqueSorted(policy.read),
    uniqueSorted(policy.write),
    policy.network,
    policy.processes,
    uniqueSorted(policy.protect ?? []),
    policy.readOnlyWorkspace === true,
    env,
  ]);
}

/** Options of {@link defaultSandboxEnv}. */
export interface DefaultSandboxEnvOptions {
  /**
   * The run's private temp dir as seen by the process. Default `/tmp`, which is private under bwrap
   * (a fresh tmpfs); without bwrap the caller should pass a private dir that is also in `policy.write`.
   */
  readonly tmpDir?: string;
}

/**
 * The environment a confined process gets by default: a PATH over the system binary dirs (plus the
 * Node install's bin dir when Node lives outside /usr), HOME and the working directory alike, a
 * private TMPDIR and a UTF-8 locale. Nothing from the host's own environment.
 */
export function defaultSandboxEnv(cwd: string, options: DefaultSandboxEnvOptions = {}): Record<string, string> {
  const systemPath = ['/usr/local/bin', '/usr/bin', '/bin'];
  const nodeBin = dirname(realExecPath());
  const path = isWithin(nodeBin, '/usr') || nodeBin === '/bin' ? systemPath : [nodeBin, ...systemPath];
  return {
    PATH: path.join(':'),
    HOME: cwd,
    TMPDIR: options.tmpDir ?? '/tmp',
    LANG: 'C.UTF-8',
  };
}

/** A policy whose paths are real, existing, absolute locations. */
export interface ResolvedPolicyPaths {
  readonly cwd: string;
  /** Extra read-only paths not already covered by a writable one. */
  readonly read: readonly string[];
  /** Extra writable paths not already covered by cwd or another writable path. */
  readonly write: readonly string[];
  /** cwd itself is read-only (SandboxPolicy.readOnlyWorkspace); `write` then holds only private dirs. */
  readonly cwdReadOnly?: boolean;
  /** Existing protected paths given by the policy (`--protect`), real. */
  readonly protect?: readonly string[];
}

/**
 * Resolves cwd and the policy paths with realpath (a bind or an allowlist must name the real
 * location, so a symlink cannot widen or dodge it). A read or write path that does not exist is
 * skipped, not created: creating directories on the host is the caller's business. A missing cwd or a
 * relative path is caller misuse (CONFIG). Paths already covered by a writable path are dropped so a
 * read-only bind never narrows the workspace.
 */
export function resolvePolicyPaths(policy: Pick<SandboxPolicy, 'cwd' | 'read' | 'write' | 'protect' | 'readOnlyWorkspace'>): ResolvedPolicyPaths {
  if (!isAbsolute(policy.cwd)) throw new ConfigError(`sandbox cwd must be an absolute path, got "${policy.cwd}".`);
  const cwd = realpathOrUndefined(policy.cwd);
  if (cwd === undefined) throw new ConfigError(`sandbox cwd "${policy.cwd}" does not exist.`);
  const resolveAll = (paths: readonly string[], what: string): string[] => {
    const out: string[] = [];
    for (const path of paths) {
      if (!isAbsolute(path)) throw new ConfigError(`sandbox ${what} path must be absolute, got "${path}".`);
      const real = realpathOrUndefined(path);
      if (real !== undefined && !out.includes(real)) out.push(real);
    }
    return out;
  };
  const cwdReadOnly = policy.readOnlyWorkspace === true;
  // A read-only cwd covers no writable path: a private dir inside it must still get its own bind.
  const writable: string[] = cwdReadOnly ? [] : [cwd];
  for (const path of resolveAll(policy.write, 'write').sort(byDepth)) {
    if (!writable.some((w) => isWithin(path, w))) writable.push(path);
  }
  const read = resolveAll(policy.read, 'read').filter((path) => !writable.some((w) => isWithin(path, w)));
  const protect = resolveAll(policy.protect ?? [], 'protect');
  return {
    cwd,
    read,
    write: cwdReadOnly ? writable : writable.slice(1),
    ...(cwdReadOnly ? { cwdReadOnly } : {}),
    ...(protect.length > 0 ? { protect } : {}),
  };
}

/** True when `path` is `base` or inside it (both absolute and normalised). */
export function isWithin(path: string, base: string): boolean {
  if (path === base) return true;
  const rel = relative(base, path);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/** The real path of the running Node binary (process.execPath may be a symlink, e.g. from a version manager). */
export function realExecPath(): string {
  return realpathOrUndefined(process.execPath) ?? process.execPath;
}

export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    // Missing, a dangling link, a loop or unreadable: nothing a bind or an allowlist could name.
    return undefined;
  }
}

function byDepth(a: string, b: string): number {
  return a.split('/').length - b.split('/').length;
}
