// A successful sandbox probe, remembered until the host reboots (docs/runtime-lifecycle.md, "The
// probe"): a one-shot `ptc exec` then starts no probe process at all. The file lives in the host's
// private root (private-dir.ts), which no sandboxed program can write; it must be a regular file owned
// by this user and writable by no one else, and its key names everything the probe's answer depends
// on (the boot, the kernel's user-namespace switches, the bwrap and Node binaries, the filter). Only
// success is remembered, and probe.ts takes `seccomp` only as what this host would have found (true
// exactly where a filter exists), so a forged or stale file can at worst make a launch fail, never
// drop the filter.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateRoot } from './private-dir.js';
import { MAX_PROBE_CACHE_BYTES } from './limits.js';

const CACHE_VERSION = 1;

/** What a cached success says: bwrap at this path works here, with or without the filter. */
export interface CachedProbe {
  readonly bwrapPath: string;
  readonly seccomp: boolean;
}

/** The cache file's name in its dir. */
export const PROBE_CACHE_FILE = 'sandbox-probe.json';

function cachePath(dir: string): string {
  return join(dir, PROBE_CACHE_FILE);
}

/** The private root, or undefined where there is none (then nothing is remembered). */
function defaultDir(): string | undefined {
  try {
    return privateRoot();
  } catch {
    return undefined;
  }
}

function fileKey(path: string): string {
  try {
    const stat = statSync(path);
    return `${path}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return `${path}:missing`;
  }
}

function readOptional(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Everything the probe's answer depends on; undefined where there is no boot id to key by. */
export function probeCacheKey(bwrapPath: string, nodePath: string, filter: Buffer | undefined): string | undefined {
  const boot = readOptional('/proc/sys/kernel/random/boot_id');
  if (boot === '') return undefined;
  const parts = [
    `v${CACHE_VERSION}`,
    boot,
    readOptional('/proc/sys/user/max_user_namespaces'),
    readOptional('/proc/sys/kernel/unprivileged_userns_clone'),
    readOptional('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    fileKey(bwrapPath),
    fileKey(nodePath),
    filter === undefined ? 'no-filter' : createHash('sha256').update(filter).digest('hex'),
  ];
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/** The remembered success for `key`, if a trustworthy file holds it. */
export function readCachedProbe(key: string, dir: string | undefined = defaultDir()): CachedProbe | undefined {
  if (dir === undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(cachePath(dir), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
    if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o022) !== 0 || stat.size > MAX_PROBE_CACHE_BYTES) return undefined;
    const parsed: unknown = JSON.parse(readFileSync(fd, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const entry = parsed as Record<string, unknown>;
    if (entry['key'] !== key || typeof entry['bwrapPath'] !== 'string' || typeof entry['seccomp'] !== 'boolean') return undefined;
    return { bwrapPath: entry['bwrapPath'], seccomp: entry['seccomp'] };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Remembers a success (best effort: a file another user made, or a read-only temp dir, is left alone). */
export function writeCachedProbe(key: string, probe: CachedProbe, dir: string | undefined = defaultDir()): void {
  if (dir === undefined) return;
  const path = cachePath(dir);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify({ key, bwrapPath: probe.bwrapPath, seccomp: probe.seccomp }), { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never made.
    }
  }
}

/** Forgets the remembered success (a launch showed it no longer holds). */
export function clearCachedProbe(dir: string | undefined = defaultDir()): void {
  if (dir === undefined) return;
  try {
    unlinkSync(cachePath(dir));
  } catch {
    // Nothing remembered.
  }
}
