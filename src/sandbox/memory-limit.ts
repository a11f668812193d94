// The memory limit of a run over its whole process tree (docs/sandbox.md, "Memory"). Where a writable
// cgroup v1 `memory` hierarchy exists (root on hosts with v1 or hybrid cgroups), each bwrap launch
// gets its own group `ptc-harness/<host pid>-<n>`, like its pids group, with memory.limit_in_bytes
// (and memory.memsw.limit_in_bytes where swap is accounted) set to the run's limit. The kernel then
// charges every page the tree makes resident (heap, buffers, tmpfs files, page tables) to the group and
// OOM-kills inside it at the limit; the host reads the group's `oom_kill` count, which only the kernel
// raises, to know the tree went over. Elsewhere the host sums the resident size of the tree
// (`tree-rss`, proc-tree.ts).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeV1GroupRoot, V1Group, type V1GroupRoot } from './cgroup-v1.js';
import type { SandboxReport } from './types.js';

/** How a run's memory limit is enforced, reported as `sandbox.memory` (docs/sandbox.md, "Memory"). */
export type MemoryMechanism = NonNullable<SandboxReport['memory']>;

let probed: V1GroupRoot | undefined;

/** Where memory groups are made, or why none can be. Probed once per process. */
export function memoryLimitSupport(): V1GroupRoot {
  probed ??= probeV1GroupRoot('memory');
  return probed;
}

/** One launch's memory group. */
export class MemoryGroup extends V1Group {
  /**
   * Makes a group limited to `limitBytes`, or undefined where groups cannot be made, the limit cannot
   * be set, or the kernel does not count OOM kills per group (then nothing could tell a kill apart).
   */
  static create(limitBytes: number): MemoryGroup | undefined {
    const { root } = memoryLimitSupport();
    const path = root === undefined ? undefined : V1Group.makeDir(root);
    if (path === undefined) return undefined;
    const group = new MemoryGroup(path);
    try {
      writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitBytes));
      if (group.oomKills() !== 0) throw new Error('no oom_kill count');
    } catch {
      group.remove();
      return undefined;
    }
    // Memory plus swap: without it a tree could move pages out to swap past the limit. Absent where
    // swap is not accounted (then there is nothing to move pages to through this group).
    try {
      writeFileSync(join(path, 'memory.memsw.limit_in_bytes'), String(limitBytes));
    } catch {
      // No swap accounting.
    }
    return group;
  }

  /** How many processes the kernel OOM-killed in the group so far; undefined when it cannot be read. */
  oomKills(): number | undefined {
    let text: string;
    try {
      text = readFileSync(join(this.path, 'memory.oom_control'), 'latin1');
    } catch {
      return undefined;
    }
    const match = /^oom_kill (\d+)$/m.exec(text);
    return match === null ? undefined : Number(match[1]);
  }
}
