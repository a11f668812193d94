// Leftovers of hosts that died without cleaning up (SIGKILL, a crash): dirs in the private root
// (private-dir.ts) named `<kind>-<owner tag>-<random>`, and pids, freezer and memory cgroups named `<owner tag>-<n>`
// (docs/sandbox.md, "Leftovers"). Swept once per process, off the hot path. An entry is removed, and
// a frozen group's members killed, only when its owner is provably dead (owner.ts): a host in another
// pid namespace, or one whose state cannot be read, is alive, so two hosts sharing a cgroup root
// never end each other's runs. Names without an owner tag (older versions) are left alone.

import { readdirSync, rmdirSync } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { endLeftoverGroup, freezerSupport } from './freezer.js';
import { memoryLimitSupport } from './memory-limit.js';
import { ownerProvablyDead, parseOwner, type OwnerIdentity } from './owner.js';
import { existingPrivateRoot, PRIVATE_DIR_KINDS } from './private-dir.js';
import { taskLimitSupport } from './task-limit.js';

/** Decides whether the owner of a leftover is gone (the sweep's rule; tests pass others). */
export type OwnerDead = (owner: OwnerIdentity) => boolean;

let swept: Promise<void> | undefined;

/** Starts the sweep once per process (later calls return the same promise); never rejects. */
export function sweepStaleRunState(): Promise<void> {
  swept ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => sweepStaleState(ownerProvablyDead)).catch(() => undefined);
  return swept;
}

/** One sweep with the rule `isDead`: private dirs, then frozen groups killed, then empty groups removed. */
export async function sweepStaleState(isDead: OwnerDead): Promise<void> {
  const root = existingPrivateRoot();
  if (root !== undefined) {
    for (const name of listDir(root)) {
      const owner = dirOwner(name);
      if (owner === undefined || !isDead(owner)) continue;
      // A shell dir is 0300 (unlistable, shell-channels.ts): made listable again to be emptied.
      await chmod(join(root, name), 0o700).catch(() => undefined);
      await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
    }
  }
  // A freezer group of a dead host may still hold its sandbox, frozen (a host killed between the end
  // of a run and the thaw).
  const freezerRoot = freezerSupport().root;
  for (const group of staleGroups(freezerRoot, isDead)) endLeftoverGroup(group);
  // Memory groups (memory-limit.ts) are empty like the pids groups once their sandboxes died with the host.
  const groupRoots = [taskLimitSupport().root, freezerRoot, memoryLimitSupport().root];
  for (const group of groupRoots.flatMap((groupRoot) => staleGroups(groupRoot, isDead))) {
    try {
      rmdirSync(group);
    } catch {
      // Still holds processes (dying, or no pid namespace killed them): left for a later sweep.
    }
  }
}

/** The owner of a private dir `<kind>-<owner tag>-<random>`. */
function dirOwner(name: string): OwnerIdentity | undefined {
  const dash = name.indexOf('-');
  if (dash === -1 || !(PRIVATE_DIR_KINDS as readonly string[]).includes(name.slice(0, dash))) return undefined;
  return parseOwner(name.slice(dash + 1));
}

/** The groups `<owner tag>-<n>` under `root` whose owning host is dead by `isDead`. */
function staleGroups(root: string | undefined, isDead: OwnerDead): string[] {
  if (root === undefined) return [];
  return listDir(root).flatMap((name) => {
    const owner = /^\d+-\d+-\d+-\d+$/.test(name) ? parseOwner(name) : undefined;
    return owner === undefined || !isDead(owner) ? [] : [join(root, name)];
  });
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** True when a process with this pid exists here (EPERM means it exists but is not ours to signal). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
