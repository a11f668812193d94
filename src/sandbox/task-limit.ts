// A per-run cap on tasks (processes and threads) through a pids cgroup (docs/sandbox.md, "Processes").
// Where a writable cgroup v1 `pids` hierarchy exists (root on most hosts with v1 or hybrid cgroups),
// each confined launch gets its own group `ptc-harness/<host pid>-<n>` with `pids.max`; the launched
// process is moved in right after spawn (its descendants inherit the group) and the group is removed
// once its tree is gone. Elsewhere there is no cap: taskLimitSupport() says why, and only the deadline
// bounds a fork loop.

import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers, HARNESS_GROUP_DIR, probeV1GroupRoot } from './cgroup-v1.js';

/** Where per-run groups are made, or why none can be. Probed once per process. */
export interface TaskLimitSupport {
  readonly mechanism: 'cgroup-v1' | 'none';
  /** The directory holding this harness's groups (`.../pids/<own group>/ptc-harness`). */
  readonly root?: string;
  /** Why there is no cap, for diagnostics and docs. */
  readonly detail?: string;
}

/** The directory under the pids hierarchy that holds every harness's groups. */
export const TASK_GROUP_DIR = HARNESS_GROUP_DIR;

let support: TaskLimitSupport | undefined;
let nextGroup = 0;

/** Probes (once) whether per-run pids groups can be made here. */
export function taskLimitSupport(): TaskLimitSupport {
  if (support === undefined) {
    const { root, detail } = probeV1GroupRoot('pids');
    support = root === undefined ? { mechanism: 'none', ...(detail === undefined ? {} : { detail }) } : { mechanism: 'cgroup-v1', root };
  }
  return support;
}

/** One run's pids group. */
export class TaskGroup {
  readonly path: string;
  #removed = false;

  private constructor(path: string) {
    this.path = path;
  }

  /** Makes a group capped at `maxTasks`, or undefined where groups cannot be made (see taskLimitSupport). */
  static create(maxTasks: number): TaskGroup | undefined {
    const { root } = taskLimitSupport();
    if (root === undefined) return undefined;
    const path = join(root, `${process.pid}-${nextGroup++}`);
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pids.max'), String(maxTasks));
      return new TaskGroup(path);
    } catch {
      try {
        rmdirSync(path);
      } catch {
        // Never made.
      }
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

  /** The processes in the group now (every one belongs to this run). */
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
