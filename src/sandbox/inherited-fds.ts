// Descriptors the host inherited without close-on-exec (docs/sandbox.md, "Inherited descriptors"):
// a pipe the host's own parent left open, make's jobserver, an fd a native addon opened. Node opens
// its own fds with O_CLOEXEC, so these are the only ones a child of the host would inherit through
// exec. libuv leaves an 'ignore' entry at fd 3 or above untouched (it does not close it), and has no
// way to close an fd in the child, so a confined spawn puts /dev/null (opened once, close-on-exec) at
// each leaked fd's index of its stdio: the child gets /dev/null there, never the host's descriptor.
// Read per spawn from /proc/self/fd, and fdinfo only for the fds opened since the last spawn (about
// 50 microseconds here, next to a fork of 7-18 ms; all of fdinfo each time took about 1 ms).

import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { SandboxUnavailableError } from '../errors.js';
import { MAX_COVERED_INHERITED_FD } from './limits.js';

/** O_CLOEXEC as /proc/<pid>/fdinfo shows it (its `flags:` field is octal). */
const O_CLOEXEC = 0o2000000;

type StdioEntry = 'pipe' | 'ignore' | 'inherit' | number;

let devNull: number | undefined;
let covering = true;

/**
 * Tests only (the controls of test/integration/hostile-fd-leak.test.ts): confined spawns from now on
 * pass the host's inherited descriptors on, as before this module existed. Returns the previous setting.
 */
export function setInheritedFdCovering(on: boolean): boolean {
  const before = covering;
  covering = on;
  return before;
}

/** True while confined spawns cover inherited descriptors (the spawner's helper reads it when it starts). */
export function inheritedFdCovering(): boolean {
  return covering;
}

/**
 * Whether each fd open at the last look is inheritable. An fd still open at the next look is taken
 * as the same one (Node's own fds are all close-on-exec, and the host's inherited ones stay open), so
 * a spawn reads fdinfo only for the fds opened since the previous one.
 */
let seen = new Map<number, boolean>();
const info = Buffer.alloc(256);

/** The fds (3 and above) this process holds without close-on-exec, ascending; [] where /proc is missing. */
export function inheritableFds(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const now = new Map<number, boolean>();
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    const known = seen.get(fd);
    if (known !== undefined) {
      now.set(fd, known);
      continue;
    }
    const flags = fdFlags(fd);
    // Unreadable: closed meanwhile (the directory's own fd, for one); looked at again next time.
    if (flags !== undefined) now.set(fd, (flags & O_CLOEXEC) === 0);
  }
  seen = now;
  return [...now].filter(([, inheritable]) => inheritable).map(([fd]) => fd).sort((a, b) => a - b);
}

/** The `flags:` field of /proc/self/fdinfo/<fd>, or undefined when it cannot be read. */
function fdFlags(fd: number): number | undefined {
  let handle: number;
  try {
    handle = openSync(`/proc/self/fdinfo/${fd}`, 'r');
  } catch {
    return undefined;
  }
  try {
    const text = info.toString('latin1', 0, readSync(handle, info, 0, info.length, 0));
    const flags = /^flags:\s*([0-7]+)/m.exec(text)?.[1];
    return flags === undefined ? undefined : parseInt(flags, 8);
  } catch {
    return undefined;
  } finally {
    closeSync(handle);
  }
}

/**
 * `stdio` with /dev/null at the index of every inherited descriptor it does not already replace (an
 * index past its end, or an 'ignore' at fd 3 or above). Throws SANDBOX_UNAVAILABLE for one above
 * MAX_COVERED_INHERITED_FD, which would take a stdio array that long on every spawn.
 */
export function coverInheritedFds<T extends StdioEntry>(stdio: readonly T[]): (T | number)[] {
  const out: (T | number)[] = [...stdio];
  if (!covering) return out;
  for (const fd of inheritableFds()) {
    if (fd < out.length && !(out[fd] === 'ignore' && fd >= 3)) continue;
    if (fd === devNull) continue;
    if (fd > MAX_COVERED_INHERITED_FD) {
      throw new SandboxUnavailableError(
        `The host holds file descriptor ${fd} without close-on-exec (inherited from its parent or opened by an addon), ` +
          `above the ${MAX_COVERED_INHERITED_FD} a sandbox can cover; start the host with that descriptor closed.`,
      );
    }
    while (out.length <= fd) out.push('ignore' as T);
    devNull ??= openSync('/dev/null', 'r+');
    out[fd] = devNull;
  }
  return out;
}
