// The handle of one confined process: the tree it started, its groups (pids, freezer, memory) and
// how to kill it, pause it and learn that none of it can run code again (docs/sandbox.md, "Starting
// and ending processes"). Implemented by confined.ts; made by launch() (launch.ts).

import type { ChildProcess } from 'node:child_process';
import type { MemoryGroup } from './memory-limit.js';
import type { SpawnedProcess } from './spawned-process.js';

export interface SpawnConfinedOptions {
  /** The caller's stdio entries (fd 0, 1, 2 and its own extra fds); the plan's fds follow them. */
  readonly stdio: readonly ('pipe' | 'ignore' | 'inherit')[];
  /**
   * Tasks (processes and threads) alive at once, under bwrap, where a pids group can be made
   * (default MAX_SANDBOX_TASKS; `false` for no group).
   */
  readonly maxTasks?: number | false;
  /**
   * Sample descendants from /proc this often while the process runs (for a plan without a pid
   * namespace, whose setsid orphans nothing else would find); default: only when the caller asks.
   */
  readonly sampleDescendantsMs?: number;
  /** Under bwrap, give the launch a freezer group where one can be made, for end() (launchConfined does). */
  readonly freeze?: boolean;
  /**
   * Under bwrap, give the launch a memory group limited to this many bytes where one can be made
   * (docs/sandbox.md, "Memory"); see `memoryGroup`.
   */
  readonly memoryLimitBytes?: number;
}

export interface ConfinedProcess<C extends ChildProcess | SpawnedProcess = ChildProcess> {
  readonly child: C;
  /** The spawned pid (bwrap's monitor under bwrap); undefined when the spawn failed. */
  readonly pid: number | undefined;
  /** True when the tree is capped by a pids group. */
  readonly taskLimited: boolean;
  /**
   * The launch's memory group, while it holds the whole tree: from the spawn, and after recordChain()
   * only when every process of the chain is in it (else undefined: the tree-wide RSS sum applies).
   */
  readonly memoryGroup: MemoryGroup | undefined;
  /** The resident size summed over the launch's processes (treeResidentBytes in proc-tree.ts). */
  treeResidentBytes(): { readonly bytes: number; readonly processes: number };
  /**
   * Remembers the single-child chain below the spawned process (bwrap's monitor, the namespace's init,
   * the command) and makes sure each is in the pids group; returns it, outermost first.
   */
  recordChain(): readonly number[];
  /** Remembers the current descendants so killTree() reaches those that left the process group. */
  trackDescendants(): void;
  /**
   * SIGKILL to everything the launch started (see the file comment). Synchronous: usable on host exit.
   * `spareMonitor`: under bwrap with the chain recorded, bwrap's monitor (outside the sandbox, running
   * no program code) is left for settled() to end once the namespace is quiet, so its exit does not
   * take CPU from the dying sandbox (docs/runtime-lifecycle.md, "Settling").
   */
  killTree(options?: { readonly spareMonitor?: boolean }): void;
  /**
   * SIGSTOP to the chain as it stands (a child still booting), so it takes no CPU until resume();
   * returns false when nothing was stopped. Signals stop a process only between system calls, so a
   * paused launch holds no kernel lock, and killTree() still ends it.
   */
  pause(): boolean;
  /** SIGCONT to what pause() stopped (each checked against pid reuse by its start time). */
  resume(): void;
  /**
   * Resolves once the spawned process has exited and every remembered process is gone (under bwrap
   * the namespace's init outlives the monitor), bounded by PROCESS_TREE_VANISH_WAIT_MS, after a frozen
   * launch's thaw (end()); then removes the pids and freezer groups. Does not kill: call killTree() or
   * end() first.
   */
  waitGone(): Promise<void>;
  /**
   * Resolves as soon as no process of the launch can run code again (docs/runtime-lifecycle.md,
   * "Settling"): `fast` when that was read from /proc before the exit event (under bwrap with a
   * recorded chain: the pid namespace's init is dead, which the kernel allows only once every other
   * process of the namespace is gone), `wait` when it took the full wait of waitGone() (without the
   * group removal). Does not kill and does not clean up: call killTree() first and waitGone() after;
   * ends a monitor that killTree() spared.
   */
  settled(): Promise<'fast' | 'wait'>;
  /**
   * Ends the launch for good and resolves as soon as no process of it can run code again
   * (docs/runtime-lifecycle.md, "Settling"): `frozen` when its freezer group froze and everything was
   * then sent SIGKILL (the thaw, and with it the teardown, follows in a pause in the runs; waitGone()
   * waits for it), else what settled() says after killTree({ spareMonitor: true }).
   */
  end(): Promise<'frozen' | 'fast' | 'wait'>;
}
