// Is bubblewrap usable here? Decided by running a real, trivial sandbox with the same profile the
// backends use (an installed binary proves nothing: user namespaces may be disabled, /proc may not be
// mountable inside a container, seccomp may be refused). Once per process, and a success is
// remembered until the host reboots (probe-cache.ts), so later processes start no probe.

import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { buildBwrapArgs, readHostLayout } from './bwrap.js';
import { openFilterFd } from './filter-fd.js';
import { realExecPath, resolvePolicyPaths } from './policy.js';
import { makePrivateDir } from './private-dir.js';
import { probeCacheKey, readCachedProbe, writeCachedProbe } from './probe-cache.js';
import { buildSandboxFilter, encodeFilter } from './seccomp-filter.js';
import { SANDBOX_PROBE_TIMEOUT_MS, PROBE_STDERR_MAX_CHARS } from './limits.js';

/** The outcome of the probe. */
export interface SandboxProbe {
  /** Absolute path of a bwrap that ran a trivial sandbox here; absent when none works. */
  readonly bwrapPath?: string;
  /** True when bwrap also accepted the seccomp filter with every rule on (x86_64 only). */
  readonly seccomp: boolean;
  /** Why bwrap or its filter is unusable, for error messages and diagnostics. */
  readonly detail?: string;
}


let probed: Promise<SandboxProbe> | undefined;
let overridden: SandboxProbe | undefined;

/** The memoized probe result (the first call runs it). */
export function probeSandbox(): Promise<SandboxProbe> {
  if (overridden !== undefined) return Promise.resolve(overridden);
  probed ??= runProbe();
  return probed;
}

/**
 * Replaces the probe result for this process (tests use it to exercise the fallback and the
 * `required` refusal on a machine that has bwrap); `undefined` restores the real probe.
 */
export function overrideSandboxProbe(probe: SandboxProbe | undefined): void {
  overridden = probe;
}

async function runProbe(): Promise<SandboxProbe> {
  const bwrapPath = findBwrap();
  if (bwrapPath === undefined) {
    return { seccomp: false, detail: 'bwrap was not found on PATH or in /usr/bin' };
  }
  // Every rule at once: the strictest filter a launch can get must still let Node start and exit.
  const filter = buildSandboxFilter({ denySpawn: true, denyUnixSockets: true, killSignalExitCodes: true, denyAsyncIo: true });
  const encoded = filter === undefined ? undefined : encodeFilter(filter);
  const key = probeCacheKey(bwrapPath, realExecPath(), encoded);
  const cached = key === undefined ? undefined : readCachedProbe(key);
  // A remembered answer counts only where it says what this host would find: the filter works exactly
  // where one is defined. A file claiming "no filter" on x86_64 is forged or stale and would drop every
  // seccomp rule while the report still said `full` (docs/security.md, "Host-private state").
  if (cached !== undefined && cached.bwrapPath === bwrapPath && cached.seccomp === (encoded !== undefined)) {
    return cached.seccomp ? { bwrapPath, seccomp: true } : { bwrapPath, seccomp: false, detail: `no seccomp filter is defined for ${process.arch}` };
  }
  if (encoded !== undefined) {
    const withFilter = await tryBwrap(bwrapPath, encoded);
    if (withFilter === undefined) {
      if (key !== undefined) writeCachedProbe(key, { bwrapPath, seccomp: true });
      return { bwrapPath, seccomp: true };
    }
    const plain = await tryBwrap(bwrapPath, undefined);
    if (plain === undefined) return { bwrapPath, seccomp: false, detail: `seccomp filter refused: ${withFilter}` };
    return { seccomp: false, detail: plain };
  }
  const plain = await tryBwrap(bwrapPath, undefined);
  if (plain !== undefined) return { seccomp: false, detail: plain };
  if (key !== undefined) writeCachedProbe(key, { bwrapPath, seccomp: false });
  return { bwrapPath, seccomp: false, detail: `no seccomp filter is defined for ${process.arch}` };
}

function findBwrap(): string | undefined {
  const dirs = ['/usr/bin', '/usr/local/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  for (const dir of new Set(dirs)) {
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next dir.
    }
  }
  return undefined;
}

/** Runs `node -e 0` in the real profile; resolves undefined on success, else a reason. */
async function tryBwrap(bwrapPath: string, filter: Buffer | undefined): Promise<string | undefined> {
  const cwd = makePrivateDir('probe');
  const filterFd = filter === undefined ? undefined : openFilterFd(filter);
  try {
    const args = buildBwrapArgs({
      layout: readHostLayout(),
      paths: resolvePolicyPaths({ cwd, read: [], write: [] }),
      runtimeRead: [],
      // Its only policy path is a private dir, and it runs `node -e 0`: nothing to hide from it.
      hidden: [],
      network: false,
      env: { PATH: '/usr/bin:/bin' },
      ...(filterFd === undefined ? {} : { seccompFd: 3 }),
      command: realExecPath(),
      args: ['-e', '0'],
    });
    const child = spawn(bwrapPath, args, {
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', ...(filterFd === undefined ? [] : [filterFd])],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < PROBE_STDERR_MAX_CHARS) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), SANDBOX_PROBE_TIMEOUT_MS);
    const outcome = await new Promise<string | undefined>((resolve) => {
      child.once('error', (error) => resolve(`bwrap could not start: ${error.message}`));
      child.once('close', (code, signal) => {
        if (code === 0) resolve(undefined);
        else resolve(`bwrap failed (${signal ?? `exit ${String(code)}`}): ${stderr.trim().slice(0, PROBE_STDERR_MAX_CHARS) || 'no message'}`);
      });
    });
    clearTimeout(timer);
    return outcome;
  } finally {
    if (filterFd !== undefined) closeSync(filterFd);
    rmSync(cwd, { recursive: true, force: true });
  }
}
