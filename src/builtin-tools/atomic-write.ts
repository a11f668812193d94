// Replace a file's contents atomically: readers see the old file or the new one, never a mix, and a
// failed write leaves the old file untouched and no temp file behind. Used by `write` and `edit`.
// Everything happens inside one opened directory (docs/file-tools.md): the temp file is created and
// renamed through that descriptor, so swapping the directory's path for a symlink cannot move either.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

import { CREATE_FLAGS, at, closeQuietly, writeAllFd } from './safe-fs.js';

export interface AtomicWriteResult {
  /** True when no file existed at the target before. */
  readonly created: boolean;
}

/**
 * Writes `data` to a fresh temp file in the directory `dirFd`, fsyncs it, then renames it over `name`
 * in that same directory. `existing` (the `fstat` of the file being replaced, if any) gives the new
 * file its permission bits and, when we may, its owner. Throws the raw fs error.
 */
export async function writeFileAtomicAt(
  dirFd: number,
  name: string,
  data: string | Uint8Array,
  existing: fs.Stats | undefined,
): Promise<AtomicWriteResult> {
  // Same directory, so the rename never crosses a filesystem; O_EXCL plus random bytes keeps
  // concurrent writers from sharing a temp file, O_NOFOLLOW keeps a planted symlink from catching it.
  const temp = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  let fd: number | undefined;
  try {
    fd = fs.openSync(at(dirFd, temp), CREATE_FLAGS, mode);
    await writeAllFd(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (existing) {
      // The umask applied at open may have dropped bits the old file had.
      fs.fchmodSync(fd, mode);
      keepOwner(fd, existing);
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(at(dirFd, temp), at(dirFd, name));
  } catch (error) {
    closeQuietly(fd);
    try {
      fs.unlinkSync(at(dirFd, temp));
    } catch {
      // Never created, or already renamed away.
    }
    throw error;
  }
  syncDirectory(dirFd);
  return { created: existing === undefined };
}

function keepOwner(fd: number, existing: fs.Stats): void {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (existing.uid === uid && existing.gid === gid) return;
  try {
    fs.fchownSync(fd, existing.uid, existing.gid);
  } catch {
    // Only a privileged process may give a file away; otherwise the new file is simply ours.
  }
}

/** Makes the rename durable; best effort, since some filesystems refuse to fsync a directory. */
function syncDirectory(dirFd: number): void {
  try {
    fs.fsyncSync(dirFd);
  } catch {
    // Durability of the directory entry is a bonus, not a condition of success.
  }
}
