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
 * Every thread of `pid` is gone, a zombie, or inside do_exit (PF_EXITING, proc(5) field 9) with its
 * address space dropped (vsize, field 23, is 0): the process can never run code again.
 */
export function cannotRunCode(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return tasks.every((tid) => {
    const fields = fieldsOf(`/proc/${pid}/task/${tid}/stat`);
    if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return true;
    return (Number(fields[6]) & 0x4) !== 0 && fields[20] === '0';
  });
}
