// Reading a process tree from /proc (Linux): resident memory for the watchdog, the program's own pid
// below sandbox wrappers, and descendants to kill. Every read tolerates the process vanishing.

import { readdirSync, readFileSync } from 'node:fs';

/** Direct children of `pid` (those its main thread started; Node spawns from the main thread). */
export function childPids(pid: number): number[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const part of text.split(' ')) {
    const child = Number(part);
    if (Number.isInteger(child) && child > 0) out.push(child);
  }
  return out;
}

/**
 * The single-child chain starting at `pid`, outermost first: bwrap's monitor, the pid namespace's
 * init and the program's Node process last; just `[pid]` when nothing wraps the program.
 */
export function processChain(pid: number, maxDepth = 8): number[] {
  const chain = [pid];
  for (let depth = 0; depth < maxDepth; depth++) {
    const children = childPids(chain[chain.length - 1] as number);
    if (children.length !== 1) break;
    chain.push(children[0] as number);
  }
  return chain;
}

/** `pid`'s pid in its own (innermost) pid namespace, e.g. 1 for a namespace's init; undefined when gone. */
export function namespacePid(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^NSpid:[ \t]+([\d \t]+)$/m.exec(status);
  const last = match?.[1]?.trim().split(/\s+/).pop();
  return last === undefined ? undefined : Number(last);
}

/** Resident set size of `pid` in bytes, or undefined when it is gone. */
export function residentBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** The kernel's start time of `pid` (clock ticks since boot), which tells a reused pid apart; undefined when gone. */
export function startTime(pid: number): number | undefined {
  const stat = readStat(pid);
  return stat?.startTime;
}

/** True while `pid` exists, is not a zombie, and (when `started` is given) is still the same process. */
export function isAlive(pid: number, started?: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X' && (started === undefined || stat.startTime === started);
}

/**
 * True when `pid` (the process `started` identifies) can never run code again: gone, reused, or every
 * one of its threads a zombie. A process's /proc/PID/stat shows the main thread only, which may be a
 * zombie while other threads are still finishing a system call, so each task is read.
 */
export function isDead(pid: number, started: number): boolean {
  const stat = readStat(pid);
  if (stat === undefined || stat.startTime !== started) return true;
  if (stat.state !== 'Z' && stat.state !== 'X') return false;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  for (const tid of tasks) {
    const task = readStatFile(`/proc/${pid}/task/${tid}/stat`);
    if (task !== undefined && task.state !== 'Z' && task.state !== 'X') return false;
  }
  return true;
}

interface Stat {
  readonly state: string;
  readonly startTime: number;
}

function readStat(pid: number): Stat | undefined {
  return readStatFile(`/proc/${pid}/stat`);
}

/**
 * The fields of a `/proc/.../stat` file after the command name, state first (so proc(5)'s field N is
 * index N - 3), or undefined when the file cannot be read (the task is gone).
 */
export function readStatFields(path: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may contain spaces or parentheses: parse after the last ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function readStatFile(path: string): Stat | undefined {
  const fields = readStatFields(path);
  if (fields === undefined) return undefined;
  const startTime = Number(fields[19]);
  return { state: fields[0] ?? '', startTime: Number.isFinite(startTime) ? startTime : 0 };
}

/**
 * Adds every descendant of `root` to `seen` (pid -> start time), at most `max` entries in all. Sampled
 * repeatedly during a run, it remembers processes that later leave the process group (setsid), so
 * settlement can kill them too where no pid namespace does it.
 */
export function recordDescendants(root: number, seen: Map<number, number>, max: number): void {
  const stack = [root];
  while (stack.length > 0 && seen.size < max) {
    const pid = stack.pop() as number;
    for (const child of childPids(pid)) {
      if (!seen.has(child)) {
        const started = startTime(child);
        if (started === undefined) continue;
        seen.set(child, started);
      }
      stack.push(child);
    }
  }
}

/** Children of `pid` started by any of its threads (a worker thread's children are listed under it). */
function childPidsOfAllThreads(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const part of text.split(' ')) {
      const child = Number(part);
      if (Number.isInteger(child) && child > 0) out.push(child);
    }
  }
  return out;
}

/**
 * The resident size summed over `root`, every process below it, and every process of `remembered`
 * (pid -> start time) that is still the same one, with the processes below those (a process that
 * left the tree by a double fork); at most `max` processes. Pages shared between processes count once
 * per process, so the sum errs high. The tree-wide watchdog (docs/sandbox.md, "Memory").
 */
export function treeResidentBytes(root: number, remembered: ReadonlyMap<number, number>, max: number): { readonly bytes: number; readonly processes: number } {
  const seen = new Set<number>();
  const stack = [root];
  for (const [pid, started] of remembered) if (pid !== root && startTime(pid) === started) stack.push(pid);
  let bytes = 0;
  while (stack.length > 0 && seen.size < max) {
    const pid = stack.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    bytes += residentBytes(pid) ?? 0;
    for (const child of childPidsOfAllThreads(pid)) if (!seen.has(child)) stack.push(child);
  }
  return { bytes, processes: seen.size };
}
