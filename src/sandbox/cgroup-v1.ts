// Where this harness may make per-run groups in a cgroup v1 hierarchy (docs/sandbox.md, "Processes"):
// `<mount>/<this process's own group>/ptc-harness`, when the controller is mounted at
// /sys/fs/cgroup/<controller> and that directory can be made (root on most hosts with v1 or hybrid
// cgroups). Used by the pids cap (task-limit.ts), the settle's freezer (freezer.ts) and the memory
// limit (memory-limit.ts).

import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerTag } from './owner.js';

/** The directory under each hierarchy that holds every harness's groups. */
export const HARNESS_GROUP_DIR = 'ptc-harness';

export interface V1GroupRoot {
  /** The directory holding this harness's groups, when groups can be made. */
  readonly root?: string;
  /** Why they cannot, for diagnostics and docs. */
  readonly detail?: string;
}

/** Probes whether per-run groups of `controller` can be made here (call once and keep the answer). */
export function probeV1GroupRoot(controller: 'pids' | 'freezer' | 'memory'): V1GroupRoot {
  const mount = `/sys/fs/cgroup/${controller}`;
  const own = ownV1Group(controller, mount);
  if (own === undefined) return { detail: `no cgroup v1 ${controller} hierarchy is mounted at ${mount} (cgroup v2 delegation is not used)` };
  const root = join(mount, own, HARNESS_GROUP_DIR);
  try {
    mkdirSync(root, { recursive: true });
    readFileSync(join(mount, own, 'cgroup.procs'));
    return { root };
  } catch (error) {
    return { detail: `cannot create ${controller} groups under ${root}: ${(error as Error).message}` };
  }
}

/** This process's group in the controller's v1 hierarchy, from /proc/self/cgroup (`N:pids:/path`). */
function ownV1Group(controller: string, mount: string): string | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
    readFileSync(join(mount, 'cgroup.procs'));
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (controllers !== undefined && controllers.split(',').includes(controller) && path !== undefined) return path;
  }
  return undefined;
}

let nextGroup = 0;

/**
 * One launch's group in a v1 hierarchy, `<root>/<owner tag>-<n>`: the owner tag (owner.ts) is the
 * host's pid, pid namespace and start time, so the stale sweep ends a group only when its host is
 * provably dead. Every controller's groups are named here. Subclasses add what their controller does.
 */
export class V1Group {
  readonly path: string;
  #removed = false;

  protected constructor(path: string) {
    this.path = path;
  }

  /** Makes the directory of a new group under `root` and returns its path, or undefined on failure. */
  protected static makeDir(root: string): string | undefined {
    const path = join(root, `${ownerTag()}-${nextGroup++}`);
    try {
      mkdirSync(path);
      return path;
    } catch {
      return undefined;
    }
  }

  /** Moves a process (all its threads) into the group; false when it is gone or the move failed. */
  add(pid: number): boolean {
    try {
      writeFileSync(join(this.path, 'cgroup.procs'), String(pid));
      return true;
    } catch {
      return false;
    }
  }

  /** The processes in the group now (every one belongs to this launch). */
  members(): number[] {
    return groupMembers(this.path);
  }

  /** Removes the group once empty; true when it is gone (a busy group is left to the stale sweep). */
  remove(): boolean {
    if (this.#removed) return true;
    try {
      rmdirSync(this.path);
      this.#removed = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.#removed = true;
    }
    return this.#removed;
  }
}

/** The processes in a group now, from its cgroup.procs (empty when it cannot be read). */
export function groupMembers(path: string): number[] {
  let text: string;
  try {
    text = readFileSync(join(path, 'cgroup.procs'), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map(Number).filter((pid) => Number.isInteger(pid) && pid > 0);
}
