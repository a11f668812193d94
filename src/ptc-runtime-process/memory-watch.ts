// The memory limit over a run's whole process tree, as a run session sees it (docs/sandbox.md,
// "Memory"): under a memory group, whether the kernel OOM-killed a process of the group since the
// run began (a count only the kernel raises); otherwise whether the resident sizes of the tree add
// up to more than the limit.

import type { ErrorInfo } from '../errors.js';
import type { ProcessChild } from './process-child.js';
import { treeMemoryLimitError } from './session-texts.js';

export class MemoryWatch {
  readonly #child: ProcessChild;
  readonly #limitBytes: number;
  readonly #hint: string;
  /** The group's OOM kills before this run (a kept process's group may count earlier runs' kills). */
  readonly #oomKillsBefore: number | undefined;

  /** Call at the start of the run, before the program runs. */
  constructor(child: ProcessChild, limitBytes: number, hint: string) {
    this.#child = child;
    this.#limitBytes = limitBytes;
    this.#hint = hint;
    this.#oomKillsBefore = child.memoryMechanism === 'cgroup-v1' ? (child.oomKillsBeforeRun() ?? 0) : undefined;
  }

  /**
   * True under a memory group: an OOM kill there decides the run at its settlement too, whatever the
   * program made of it (the tree-wide sum is a sample, read on the watchdog's ticks only).
   */
  get kernelCounted(): boolean {
    return this.#oomKillsBefore !== undefined;
  }

  /** The MEMORY_LIMIT error when the tree went over the limit, else undefined. */
  overLimit(): ErrorInfo | undefined {
    const before = this.#oomKillsBefore;
    if (before !== undefined) {
      const kills = this.#child.oomKills();
      return kills !== undefined && kills > before ? treeMemoryLimitError(this.#limitBytes, undefined, this.#hint) : undefined;
    }
    const tree = this.#child.treeResidentBytes();
    return tree.bytes > this.#limitBytes ? treeMemoryLimitError(this.#limitBytes, tree, this.#hint) : undefined;
  }
}
