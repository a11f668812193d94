// A per-run cap on tasks (processes and threads) through a pids cgroup (docs/sandbox.md, "Processes").
// Where a writable cgroup v1 `pids` hierarchy exists (root on most hosts with v1 or hybrid cgroups),
// each confined launch gets its own group `ptc-harness/<owner tag>-<n>` with `pids.max`; the launched
// process is moved in right after spawn (its descendants inherit the group) and the group is removed
// once its tree is gone. Elsewhere there is no cap: taskLimitSupport() says why, and only the deadline
// bounds a fork loop.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HARNESS_GROUP_DIR, probeV1GroupRoot, V1Group } from './cgroup-v1.js';

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

/** Probes (once) whether per-run pids groups can be made here. */
export function taskLimitSupport(): TaskLimitSupport {
  if (support === undefined) {
    const { root, detail } = probeV1GroupRoot('pids');
    support = root === undefined ? { mechanism: 'none', ...(detail === undefined ? {} : { detail }) } : { mechanism: 'cgroup-v1', root };
  }
  return support;
}

/** One run's pids group. */
export class TaskGroup extends V1Group {
  /** Makes a group capped at `maxTasks`, or undefined where groups cannot be made (see taskLimitSupport). */
  static create(maxTasks: number): TaskGroup | undefined {
    const { root } = taskLimitSupport();
    const path = root === undefined ? undefined : V1Group.makeDir(root);
    if (path === undefined) return undefined;
    const group = new TaskGroup(path);
    try {
      writeFileSync(join(path, 'pids.max'), String(maxTasks));
      return group;
    } catch {
      group.remove();
      return undefined;
    }
  }
}
