// A fresh read-only fd holding the seccomp filter bytes, one per launch: bwrap reads its `--seccomp`
// fd to EOF, so a shared fd would hand the second launch an empty filter. Node has no memfd_create or
// pipe(2), so the bytes go to a file in a dir of the host's private root (private-dir.ts, out of every
// sandbox's reach) that is unlinked as soon as it is opened: the fd is the only way left to reach
// them. The file is written and read back through fds of the one inode it was created as (O_EXCL,
// then /proc/self/fd), never by its path a second time, so no swap of the path can change the filter.

import { closeSync, constants, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir } from './private-dir.js';

/** Opens a read-only fd positioned at the start of `bytes`. The caller closes it. */
export function openFilterFd(bytes: Uint8Array): number {
  const dir = makePrivateDir('seccomp');
  let writer: number | undefined;
  try {
    writer = openSync(join(dir, 'filter.bpf'), constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    let done = 0;
    while (done < bytes.length) done += writeSync(writer, bytes, done, bytes.length - done, done);
    try {
      // A read-only description of the same inode, with its own offset at 0.
      return openSync(`/proc/self/fd/${writer}`, 'r');
    } catch {
      // No /proc: the writer itself (positional writes left its offset at 0).
      const same = writer;
      writer = undefined;
      return same;
    }
  } finally {
    if (writer !== undefined) closeSync(writer);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Returns a `release()` that closes `fds` exactly once: a second call must not close a number the
 * process has since reused for something else.
 */
export function releaseOnce(fds: readonly number[]): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const fd of fds) closeSync(fd);
  };
}
