// Confined: the ConfinedProcess of a spawned plan. It puts the process into a per-run pids group
// where one can be made (and freezer and memory groups when asked), remembers descendants sampled
// from /proc (they may leave the process group with setsid), and kills the whole tree: the group, the
// remembered processes (each checked against pid reuse by its start time) and every member of the
// pids group (docs/sandbox.md, "Starting and ending processes"; docs/runtime-lifecycle.md, "Settling").

import type { ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { FREEZE_WAIT_MS, MAX_SANDBOX_TASKS, MAX_TRACKED_DESCENDANTS, PROCESS_TREE_VANISH_WAIT_MS, SETTLE_POLL_MS } from './limits.js';
import type { ConfinedProcess, SpawnConfinedOptions } from './confined-process.js';
import { FreezeGroup, thawLater, thawNow } from './freezer.js';
import { MemoryGroup } from './memory-limit.js';
import { NamespaceProc } from './namespace-proc.js';
import { isAlive, isDead, namespacePid, processChain, recordDescendants, startTime, treeResidentBytes } from './proc-tree.js';
import type { SpawnedProcess } from './spawned-process.js';
import { TaskGroup } from './task-limit.js';
import type { LaunchPlan } from './types.js';


export class Confined<C extends ChildProcess | SpawnedProcess> implements ConfinedProcess<C> {
  readonly child: C;
  readonly #group: TaskGroup | undefined;
  /** pid -> start time of every process ever seen in the tree. */
  readonly #known = new Map<number, number>();
  readonly #bwrap: boolean;
  /** The pid namespace's init (host pid and start time), once recordChain() found it. */
  #nsInit: { readonly pid: number; readonly started: number } | undefined;
  /** True when the plan denies asynchronous I/O, which the quiescence check relies on. */
  readonly #asyncIoDenied: boolean;
  /** The namespace's own /proc, opened with the chain (before any program code ran). */
  #nsProc: NamespaceProc | undefined;
  #vanished: Promise<void> | undefined;
  #exited = false;
  readonly #exit: Promise<void>;
  #sampler: NodeJS.Timeout | undefined;
  /** What pause() stopped, until resume(). */
  #paused: number[] = [];
  /** killTree() left bwrap's monitor alive for settled() to end. */
  #monitorSpared = false;
  /** The launch's freezer group (bwrap, where one can be made); see end(). */
  readonly #freezer: FreezeGroup | undefined;
  /** Every process of the recorded chain is in the freezer group, so freezing it stops them all. */
  #freezable = false;
  /** Frozen and sent SIGKILL: resolves once the group is thawed (and its tasks can die). */
  #thawed: Promise<void> | undefined;
  /** The launch's memory group (bwrap, where one can be made), removed in waitGone(). */
  readonly #memory: MemoryGroup | undefined;
  /** False once recordChain() found a process of the chain outside the memory group. */
  #memoryHoldsTree = true;

  constructor(child: C, plan: LaunchPlan, options: SpawnConfinedOptions) {
    this.child = child;
    const events: EventEmitter = child;
    this.#bwrap = plan.backend === 'bwrap';
    this.#asyncIoDenied = plan.asyncIoDenied;
    this.#exit = new Promise<void>((resolve) => {
      const done = (): void => {
        this.#exited = true;
        if (this.#sampler !== undefined) clearInterval(this.#sampler);
        resolve();
      };
      events.once('exit', done);
      events.once('error', () => {
        if (child.pid === undefined) done();
      });
    });
    const pid = child.pid;
    const maxTasks = options.maxTasks ?? MAX_SANDBOX_TASKS;
    // Right after spawn bwrap is still setting up its namespaces (milliseconds) and has forked
    // nothing yet, so the whole tree inherits the group; recordChain() re-checks the chain later.
    if (pid !== undefined && plan.backend === 'bwrap' && maxTasks !== false) {
      const group = TaskGroup.create(maxTasks);
      if (group !== undefined && !group.add(pid)) group.remove();
      this.#group = group?.members().includes(pid) === true ? group : undefined;
    }
    // Membership is checked for the whole chain at recordChain(), which is what end() relies on.
    let freezer = pid !== undefined && plan.backend === 'bwrap' && options.freeze === true ? FreezeGroup.create() : undefined;
    if (freezer !== undefined && !freezer.add(pid as number)) {
      freezer.remove();
      freezer = undefined;
    }
    this.#freezer = freezer;
    // Like the pids group, moved in right after spawn; bwrap may have forked first, so recordChain()
    // moves the chain again and checks it before the program runs (docs/sandbox.md, "Memory").
    let memory = pid !== undefined && plan.backend === 'bwrap' && options.memoryLimitBytes !== undefined ? MemoryGroup.create(options.memoryLimitBytes) : undefined;
    if (memory !== undefined && !memory.add(pid as number)) {
      memory.remove();
      memory = undefined;
    }
    this.#memory = memory;
    if (pid !== undefined) this.#remember(pid);
    if (pid !== undefined && options.sampleDescendantsMs !== undefined) {
      this.#sampler = setInterval(() => this.trackDescendants(), options.sampleDescendantsMs);
      this.#sampler.unref();
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get taskLimited(): boolean {
    return this.#group !== undefined;
  }

  get memoryGroup(): MemoryGroup | undefined {
    return this.#memoryHoldsTree ? this.#memory : undefined;
  }

  treeResidentBytes(): { readonly bytes: number; readonly processes: number } {
    const pid = this.child.pid;
    return pid === undefined || this.#exited ? { bytes: 0, processes: 0 } : treeResidentBytes(pid, this.#known, MAX_TRACKED_DESCENDANTS);
  }

  recordChain(): readonly number[] {
    return this.#recordChain(true);
  }

  /**
   * `openProc`: also hold the namespace's /proc for settled(), which is sound only while no program
   * code has run yet (docs/runtime-lifecycle.md, "Settling"); a chain first read at the kill does not.
   */
  #recordChain(openProc: boolean): readonly number[] {
    const pid = this.child.pid;
    if (pid === undefined || this.#exited) return [];
    const chain = processChain(pid);
    for (const member of chain) {
      this.#remember(member);
      // Already in by inheritance unless bwrap forked before the move; moving again is harmless.
      this.#group?.add(member);
      this.#freezer?.add(member);
      this.#memory?.add(member);
    }
    // Under bwrap the monitor's child is the namespace's init (pid 1 inside); the kernel's own check
    // of that, rather than the chain's shape, decides.
    const init = chain[1];
    if (this.#bwrap && this.#nsInit === undefined && init !== undefined && namespacePid(init) === 1) {
      const started = this.#known.get(init);
      if (started !== undefined) {
        this.#nsInit = { pid: init, started };
        if (openProc && this.#asyncIoDenied) this.#nsProc = NamespaceProc.open(init, started);
      }
    }
    // Recorded before any program code ran, the chain is every process there is: each one in the
    // group means the program and whatever it starts later (born in the group) freeze with it.
    if (openProc && this.#freezer !== undefined && chain.length >= 3) {
      const members = new Set(this.#freezer.members());
      this.#freezable = chain.every((member) => members.has(member));
    }
    // The same for the memory limit: a chain member outside the group would be outside the limit.
    if (openProc && this.#memory !== undefined) {
      const members = new Set(this.#memory.members());
      this.#memoryHoldsTree = chain.every((member) => members.has(member));
    }
    return chain;
  }

  trackDescendants(): void {
    const pid = this.child.pid;
    if (pid !== undefined && !this.#exited) recordDescendants(pid, this.#known, MAX_TRACKED_DESCENDANTS);
  }

  killTree(options: { readonly spareMonitor?: boolean } = {}): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // A caller that never recorded the chain (bash) still gets the namespace's init remembered, so the
    // kill reaches it directly and waitGone() waits for it: a dead init means an empty namespace.
    if (this.#bwrap && this.#nsInit === undefined && !this.#exited) this.#recordChain(false);
    // The deepest first: the program's own process starts dying before its parents are signalled
    // (each kill may hand the CPU to its victim before the next one is sent).
    for (const [member, started] of [...this.#known].reverse()) {
      if (member !== pid && startTime(member) === started) {
        tryKill(member);
        tryKill(-member);
      }
    }
    // The monitor can wait only where the settle watches the namespace itself (a recorded chain).
    const spare = options.spareMonitor === true && this.#nsInit !== undefined && !this.#exited;
    if (spare) this.#monitorSpared = true;
    else this.#killMonitor();
    // Everything in the group was started by this launch, however far it wandered.
    for (const member of this.#group?.members() ?? []) if (!spare || member !== pid) tryKill(member);
    // Killed while frozen, the tasks die only once thawed: a kill on close or host exit does not wait.
    if (this.#thawed !== undefined && this.#freezer !== undefined) thawNow(this.#freezer);
  }

  async end(): Promise<'frozen' | 'fast' | 'wait'> {
    if (this.#freezable && !this.#exited && (await this.#freezeThenKill())) return 'frozen';
    this.killTree({ spareMonitor: true });
    return this.settled();
  }

  /**
   * Freezes the group and, once the kernel reports every task frozen, sends SIGKILL to everything
   * (no task wakes for it, so none takes the host's CPU); false, with the group thawed again, when the
   * freeze did not complete within FREEZE_WAIT_MS (a task in an uninterruptible sleep that cannot be
   * frozen in place) or could not be asked for.
   */
  async #freezeThenKill(): Promise<boolean> {
    const freezer = this.#freezer as FreezeGroup;
    if (!freezer.freeze()) return false;
    const deadline = performance.now() + FREEZE_WAIT_MS;
    while (!freezer.frozen()) {
      if (performance.now() >= deadline) {
        freezer.thaw();
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
    // The kill first: the thaw must never come before it. Frozen, no process can fork or exit while
    // the group is read, so its list is the monitor, the chain and everything they started.
    const members = freezer.members();
    for (const member of members) tryKill(member);
    // Every process of the namespace must be in the group (all but the monitor, which is outside
    // it): one that is not was not frozen. A zombie, listed by the namespace but no longer by the
    // group, also lands here; the namespace rule then settles the run, after the thaw.
    if (this.#nsProc?.processCount() !== members.length - 1) {
      freezer.thaw();
      return false;
    }
    this.#thawed = thawLater(freezer);
    return true;
  }

  /** The spawned process (bwrap's monitor under bwrap) and its process group. */
  #killMonitor(): void {
    this.#monitorSpared = false;
    const pid = this.child.pid;
    if (pid === undefined) return;
    tryKill(-pid);
    if (!this.#exited) tryKill(pid);
  }

  pause(): boolean {
    const pid = this.child.pid;
    if (pid === undefined || this.#exited || this.#paused.length > 0) return false;
    // Innermost first, so no process of the chain runs on while its parent is already stopped.
    for (const member of processChain(pid).reverse()) {
      this.#remember(member);
      if (this.#known.has(member) && trySignal(member, 'SIGSTOP')) this.#paused.push(member);
    }
    return this.#paused.length > 0;
  }

  resume(): void {
    const paused = this.#paused;
    this.#paused = [];
    for (const member of paused.reverse()) {
      if (startTime(member) === this.#known.get(member)) trySignal(member, 'SIGCONT');
    }
  }

  async waitGone(): Promise<void> {
    await this.#thawed;
    await this.#vanish();
    this.#nsProc?.close();
    this.#group?.remove();
    this.#freezer?.remove();
    this.#memory?.remove();
  }

  async settled(): Promise<'fast' | 'wait'> {
    const init = this.#nsInit;
    if (init === undefined) {
      await this.#vanish();
      return 'wait';
    }
    let waited = false;
    const vanished = this.#vanish().then(() => {
      waited = true;
    });
    const deadline = Date.now() + PROCESS_TREE_VANISH_WAIT_MS;
    try {
      // Either the namespace's init is dead, which the kernel allows only once every other process of
      // the namespace has been reaped, or every task of the namespace is already inside do_exit()
      // (docs/runtime-lifecycle.md, "Settling"); the second comes much sooner, since init waits for
      // every address space of the namespace to be torn down.
      while (!isDead(init.pid, init.started) && this.#nsProc?.quiescent() !== true) {
        if (waited || Date.now() >= deadline) {
          // The exit event comes from the monitor: it must not be waiting to be killed.
          if (this.#monitorSpared) this.#killMonitor();
          await vanished;
          return 'wait';
        }
        await Promise.race([vanished, new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS))]);
      }
      return 'fast';
    } finally {
      if (this.#monitorSpared) this.#killMonitor();
      this.#nsProc?.close();
    }
  }

  /** The exit event, then every remembered process gone (bounded); memoized. */
  #vanish(): Promise<void> {
    this.#vanished ??= (async () => {
      await this.#exit;
      const deadline = Date.now() + PROCESS_TREE_VANISH_WAIT_MS;
      let remaining = [...this.#known].filter(([pid, started]) => isAlive(pid, started));
      while (Date.now() < deadline && (remaining.length > 0 || (this.#group?.members().length ?? 0) > 0)) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
        remaining = remaining.filter(([pid, started]) => isAlive(pid, started));
      }
    })();
    return this.#vanished;
  }

  #remember(pid: number): void {
    if (this.#known.has(pid) || this.#known.size >= MAX_TRACKED_DESCENDANTS) return;
    const started = startTime(pid);
    if (started !== undefined) this.#known.set(pid, started);
  }
}

function tryKill(target: number): void {
  trySignal(target, 'SIGKILL');
}

function trySignal(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false; // Already gone.
  }
}
