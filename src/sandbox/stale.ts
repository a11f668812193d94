// Leftovers of hosts that died without cleaning up (SIGKILL, a crash): private temp dirs named
// `ptc-run-<host pid>-<random>` or `ptc-spawner-<host pid>-<random>`, and pids, freezer and memory
// groups named `<host pid>-<n>` (docs/sandbox.md, "Leftovers").
// Swept once per process, off the hot path; an entry is removed only when its owner pid is not alive.

import { readdirSync, rmdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endLeftoverGroup, freezerSupport } from './freezer.js';
import { memoryLimitSupport } from './memory-limit.js';
import { taskLimitSupport } from './task-limit.js';

/** The mkdtemp prefix of a run's private host temp dir; the owner pid is recoverable from the name. */
export function runTempDirPrefix(): string {
  return join(tmpdir(), `ptc-run-${process.pid}-`);
}

/** The mkdtemp prefix of the spawner's private socket dir (docs/sandbox.md, "The spawner"). */
export function spawnerDirPrefix(): string {
  return join(tmpdir(), `ptc-spawner-${process.pid}-`);
}

const RUN_DIR = /^ptc-(?:run|spawner)-(\d+)-/;
const TASK_GROUP = /^(\d+)-\d+$/;

let swept: Promise<void> | undefined;

/** Starts the sweep once per process (later calls return the same promise); never rejects. */
export function sweepStaleRunState(): Promise<void> {
  swept ??= new Promise<void>((resolve) => setImmediate(resolve)).then(sweep).catch(() => undefined);
  return swept;
}

async function sweep(): Promise<void> {
  const dir = tmpdir();
  for (const name of listDir(dir)) {
    const owner = RUN_DIR.exec(name)?.[1];
    if (owner !== undefined && !pidAlive(Number(owner))) await rm(join(dir, name), { recursive: true, force: true }).catch(() => undefined);
  }
  // A freezer group of a dead host may still hold its sandbox, frozen (a host killed between the end
  // of a run and the thaw).
  const freezerRoot = freezerSupport().root;
  for (const group of staleGroups(freezerRoot)) endLeftoverGroup(group);
  for (const group of [...staleGroups(taskLimitSupport().root), ...staleGroups(freezerRoot)]) {
    try {
      rmdirSync(group);
    } catch {
      // Still holds processes (dying, or no pid namespace killed them): left for a later sweep.
    }
  }
  // Memory groups (memory-limit.ts) of dead hosts: their sandboxes died with the host, so they are
  // empty like the pids groups; one that is not is left for a later sweep.
  for (const group of staleGroups(memoryLimitSupport().root)) {
    try {
      rmdirSync(group);
    } catch {
      // Still holds processes.
    }
  }
}

/** The per-run groups under `root` whose owning host process is gone. */
function staleGroups(root: string | undefined): string[] {
  if (root === undefined) return [];
  return listDir(root).flatMap((name) => {
    const owner = TASK_GROUP.exec(name)?.[1];
    return owner === undefined || pidAlive(Number(owner)) ? [] : [join(root, name)];
  });
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** True when a process with this pid exists (EPERM means it exists but is not ours to signal). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
