// A process's state as /proc shows it, for tests that check what is left of a run: alive (running or
// sleeping), or unable to run code again in the sense of the settled guarantee
// (docs/runtime-lifecycle.md, "Settling").

import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (state first), or undefined when gone. */
export function statFields(pid: number): string[] | undefined {
  return fieldsOf(`/proc/${pid}/stat`);
}

function fieldsOf(path: string): string[] | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Neither gone nor a zombie. */
export function alive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/**
 * The process can never run code again: every thread of `pid` is gone, a zombie, or inside do_exit
 * (PF_EXITING, proc(5) field 9) with its address space dropped (vsize, field 23, is 0); or the process
 * is frozen with SIGKILL pending (frozenToDie), so it dies when thawed.
 */
export function cannotRunCode(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  const exiting = tasks.every((tid) => {
    const fields = fieldsOf(`/proc/${pid}/task/${tid}/stat`);
    if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return true;
    return (Number(fields[6]) & 0x4) !== 0 && fields[20] === '0';
  });
  return exiting || frozenToDie(pid);
}

/** SIGKILL (signal 9) in a pending-signal mask of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

/**
 * The process's cgroup v1 freezer group is FROZEN (no task of it runs until a thaw, whatever signal
 * comes) and SIGKILL is pending for the whole process: settled by freezing (docs/runtime-lifecycle.md,
 * "Settling").
 */
export function frozenToDie(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const pending = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    if (pending === undefined || (BigInt(`0x${pending}`) & SIGKILL_BIT) === 0n) return false;
    const group = /^\d+:freezer:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
    if (group === undefined || group === '/') return false;
    return readFileSync(`/sys/fs/cgroup/freezer${group}/freezer.state`, 'utf8').trim() === 'FROZEN';
  } catch {
    return false;
  }
}
