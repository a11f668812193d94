// Who owns a piece of host state (docs/sandbox.md, "Leftovers"): a host names its cgroups and its
// private dirs by its identity, `<pid>-<pid namespace inode>-<start time>`, so a later host's stale
// sweep can tell a dead owner from a live one. A pid alone is not enough: a host in another pid
// namespace has a pid that may be free (or someone else's) here, and a pid is reused after its owner
// died. The sweep calls an owner dead only when that is provable: same pid namespace as the sweeper,
// and the pid is gone, a zombie, or started at another time. Anything else (another namespace, a
// /proc that cannot be read) counts as alive and is never touched.

import { readFileSync, statSync } from 'node:fs';

/** One host process, as recorded in the names of the state it makes. */
export interface OwnerIdentity {
  readonly pid: number;
  /** The inode of its /proc/<pid>/ns/pid: the same number for every process of one pid namespace. */
  readonly pidNamespace: number;
  /** Field 22 of its /proc/<pid>/stat: clock ticks after boot, fixed for the process's life. */
  readonly startTime: number;
}

/** `<pid>-<namespace>-<start>`, the prefix every name of this host's state carries. */
export type OwnerTag = string;

let own: OwnerTag | undefined;

/** This process's tag (read once). Without a readable /proc the unknown fields are 0: such names are never swept. */
export function ownerTag(): OwnerTag {
  own ??= formatOwner(selfIdentity());
  return own;
}

export function formatOwner(owner: OwnerIdentity): OwnerTag {
  return `${owner.pid}-${owner.pidNamespace}-${owner.startTime}`;
}

const TAG = /^(\d+)-(\d+)-(\d+)-/;

/** The owner named at the start of `name` (`<tag>-<rest>`), or undefined for any other name. */
export function parseOwner(name: string): OwnerIdentity | undefined {
  const match = TAG.exec(name);
  if (match === null) return undefined;
  const [pid, pidNamespace, startTime] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (![pid, pidNamespace, startTime].every(Number.isSafeInteger) || pid <= 0 || pidNamespace <= 0) return undefined;
  return { pid, pidNamespace, startTime };
}

function selfIdentity(): OwnerIdentity {
  return { pid: process.pid, pidNamespace: namespaceInode('self') ?? 0, startTime: processStart('self')?.startTime ?? 0 };
}

/** The identity of a running process of this pid namespace (what its names would carry), if readable. */
export function identityOf(pid: number): OwnerIdentity | undefined {
  const pidNamespace = namespaceInode(pid);
  const start = processStart(pid);
  return pidNamespace === undefined || start === undefined ? undefined : { pid, pidNamespace, startTime: start.startTime };
}

function namespaceInode(pid: number | 'self'): number | undefined {
  try {
    return statSync(`/proc/${pid}/ns/pid`).ino;
  } catch {
    return undefined;
  }
}

/** The pid, state letter and start time from /proc/<pid>/stat (the name in parentheses may hold anything). */
function processStart(pid: number | 'self'): { readonly pid: number; readonly state: string; readonly startTime: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(') ');
  // After the name: state (field 3) ... starttime (field 22), so index 19 of the rest.
  const fields = text.slice(close + 2).split(' ');
  const startTime = Number(fields[19]);
  const ownPid = Number(text.slice(0, text.indexOf(' ')));
  if (close === -1 || !Number.isSafeInteger(startTime) || !Number.isSafeInteger(ownPid)) return undefined;
  return { pid: ownPid, state: fields[0] ?? '', startTime };
}

/**
 * True only when `owner` is provably gone: it ran in this process's pid namespace (and /proc is that
 * namespace's), and no process of that pid runs there now with that start time. False for an owner
 * in another pid namespace or one whose state cannot be read: it may be alive, and its runs are not
 * ours to end.
 */
export function ownerProvablyDead(owner: OwnerIdentity): boolean {
  const self = processStart('self');
  const namespace = namespaceInode('self');
  // A /proc of another pid namespace (or none) cannot prove anything about pids of ours.
  if (self === undefined || self.pid !== process.pid || namespace === undefined || owner.pidNamespace !== namespace) return false;
  if (owner.pid === process.pid) return false;
  let now: { readonly state: string; readonly startTime: number } | undefined;
  try {
    statSync(`/proc/${owner.pid}`);
    now = processStart(owner.pid);
  } catch (error) {
    // Only "no such process" proves the exit; a permission error proves nothing.
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  if (now === undefined) return false;
  return now.startTime !== owner.startTime || now.state === 'Z' || now.state === 'X';
}
