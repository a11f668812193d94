// The memory limit of a shell command's whole process tree (docs/minimal-tools.md, "Memory"), for the
// one-shot `bash` and the persistent one. The same two mechanisms as a run_code program's
// (docs/sandbox.md, "Memory"): under a memory group the kernel OOM-kills inside the group at the
// limit and its `oom_kill` count, which only the kernel raises, tells the call it happened; without
// one, the resident sizes of the tree are summed on a timer and the whole tree is killed above it.

import { RSS_WATCHDOG_INTERVAL_MS } from '../limits.js';
import type { ConfinedProcess } from '../sandbox/index.js';

export class ShellMemoryWatch {
  readonly #confined: ConfinedProcess;
  readonly #limitBytes: number;
  readonly #oomKillsBefore: number | undefined;
  readonly #timer: NodeJS.Timeout | undefined;
  #over = false;

  /**
   * Watches `confined` from now on (for the persistent shell: from the start of one command). Without
   * a memory group holding the tree, samples it and kills it above `limitBytes`.
   */
  constructor(confined: ConfinedProcess, limitBytes: number) {
    this.#confined = confined;
    this.#limitBytes = limitBytes;
    const group = confined.memoryGroup;
    this.#oomKillsBefore = group === undefined ? undefined : (group.oomKills() ?? 0);
    if (this.#oomKillsBefore === undefined) {
      this.#timer = setInterval(() => this.#sample(), RSS_WATCHDOG_INTERVAL_MS);
      this.#timer.unref();
    }
  }

  /** `cgroup-v1` when the kernel enforces the limit, `tree-rss` when the samples do. */
  get mechanism(): 'cgroup-v1' | 'tree-rss' {
    return this.#oomKillsBefore === undefined ? 'tree-rss' : 'cgroup-v1';
  }

  /** Whether the tree went over the limit so far (an OOM kill in the group, or a sample above it). */
  overLimit(): boolean {
    if (this.#over) return true;
    const before = this.#oomKillsBefore;
    if (before !== undefined) {
      const kills = this.#confined.memoryGroup?.oomKills();
      this.#over = kills !== undefined && kills > before;
    }
    return this.#over;
  }

  /** Stops sampling; returns overLimit() as of now. */
  stop(): boolean {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    return this.overLimit();
  }

  #sample(): void {
    if (this.#over) return;
    if (this.#confined.treeResidentBytes().bytes > this.#limitBytes) {
      this.#over = true;
      this.#confined.killTree();
    }
  }
}

/** The note both shells add when a command went over the limit. */
export function memoryLimitNote(limitMb: number): string {
  return (
    `Note: the command's processes went over the memory limit of ${limitMb} MiB, so a process of it was killed; ` +
    'use less memory (stream the data, process it in parts) or ask for a smaller input.'
  );
}
