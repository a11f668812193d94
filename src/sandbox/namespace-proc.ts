// The sandbox's own /proc, held open from the host, to tell when no task of a pid namespace can run
// code or finish a write again (docs/runtime-lifecycle.md, "Settling"). bwrap mounts a procfs for the
// namespace at its /proc; the host opens it through the namespace's init (`/proc/<init>/root/proc`)
// before any program code runs and keeps the directory open, because that path disappears the moment
// init starts exiting, long before the kernel has finished tearing the namespace down.

import { closeSync, openSync, readdirSync, statfsSync, constants as fsConstants } from 'node:fs';
import { readStatFields } from './proc-tree.js';

/** `f_type` of a procfs mount (PROC_SUPER_MAGIC). */
const PROC_SUPER_MAGIC = 0x9fa0;
/** `task_struct.flags`: the task is inside do_exit() and will never return to user space. */
const PF_EXITING = 0x4;

/** An open handle on one pid namespace's procfs. */
export class NamespaceProc {
  readonly #fd: number;
  readonly #base: string;
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
    this.#base = `/proc/self/fd/${fd}`;
  }

  /**
   * Opens the procfs mounted at /proc inside the pid namespace whose init is host pid `initPid`
   * (started at `initStarted`, clock ticks since boot), or returns undefined when it cannot be opened
   * or is not a procfs whose pid 1 is that very process.
   */
  static open(initPid: number, initStarted: number): NamespaceProc | undefined {
    let fd: number;
    try {
      fd = openSync(`/proc/${initPid}/root/proc`, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
    } catch {
      return undefined;
    }
    const proc = new NamespaceProc(fd);
    try {
      const init = readTaskStat(`${proc.#base}/1/stat`);
      if (statfsSync(proc.#base).type === PROC_SUPER_MAGIC && init !== undefined && init.startTime === String(initStarted)) return proc;
    } catch {
      // Not what bwrap mounted: no fast settlement.
    }
    proc.close();
    return undefined;
  }

  /**
   * True when every task (thread) of every process in the namespace is a zombie, gone, or inside
   * do_exit() with its address space already dropped, read twice with no process appearing or
   * changing identity in between (see the docs section above for why one pass is not enough).
   * False when any task may still run code or is inside a system call, or the namespace cannot be read.
   */
  quiescent(): boolean {
    if (this.#closed) return false;
    const first = this.#scan();
    if (first === undefined) return false;
    const second = this.#scan();
    if (second === undefined) return false;
    for (const [pid, started] of second) if (first.get(pid) !== started) return false;
    return true;
  }

  /** The processes the namespace lists now (zombies included), or undefined when it cannot be read. */
  processCount(): number | undefined {
    if (this.#closed) return undefined;
    try {
      return readdirSync(this.#base).filter((entry) => /^[1-9][0-9]*$/.test(entry)).length;
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      closeSync(this.#fd);
    } catch {
      // Already closed.
    }
  }

  /** pid -> start time of each process still listed; undefined as soon as one task could still run. */
  #scan(): Map<number, string> | undefined {
    let entries: string[];
    try {
      entries = readdirSync(this.#base);
    } catch {
      return undefined;
    }
    const seen = new Map<number, string>();
    for (const entry of entries) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      let tasks: string[];
      try {
        tasks = readdirSync(`${this.#base}/${entry}/task`);
      } catch {
        continue; // Reaped since the listing.
      }
      for (const tid of tasks) {
        const task = readTaskStat(`${this.#base}/${entry}/task/${tid}/stat`);
        if (task === undefined) continue;
        if (!task.finished) return undefined;
        if (tid === entry) seen.set(pid, task.startTime);
      }
    }
    return seen;
  }
}

interface TaskStat {
  /** A zombie or dead task, or one in do_exit() past exit_mm(): it can never run user code again. */
  readonly finished: boolean;
  readonly startTime: string;
}

function readTaskStat(path: string): TaskStat | undefined {
  const fields = readStatFields(path);
  if (fields === undefined) return undefined;
  // proc(5): state is field 3, flags 9, starttime 22, vsize 23 (0 once the task has no address space).
  const state = fields[0];
  const flags = Number(fields[6]);
  const finished = state === 'Z' || state === 'X' || ((flags & PF_EXITING) !== 0 && fields[20] === '0');
  return { finished, startTime: fields[19] ?? '' };
}
