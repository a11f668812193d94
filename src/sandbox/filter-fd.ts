// A fresh read-only fd holding the seccomp filter bytes, one per launch: bwrap reads its `--seccomp`
// fd to EOF, so a shared fd would hand the second launch an empty filter. Node has no memfd_create or
// pipe(2), so the bytes go to a file in a private temp dir that is unlinked as soon as it is opened:
// the fd is the only way left to reach them.

import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Opens a read-only fd positioned at the start of `bytes`. The caller closes it. */
export function openFilterFd(bytes: Uint8Array): number {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-seccomp-'));
  try {
    const file = join(dir, 'filter.bpf');
    writeFileSync(file, bytes, { mode: 0o400, flag: 'wx' });
    return openSync(file, 'r');
  } finally {
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
