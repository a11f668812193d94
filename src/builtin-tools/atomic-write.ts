// Replace a file's contents atomically: readers see the old file or the new one, never a mix, and a
// failed write leaves the old file untouched and no temp file behind. Used by `write` and `edit`.

import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';

import { errnoCode } from './workspace-policy.js';

export interface AtomicWriteResult {
  /** True when no file existed at the target before. */
  readonly created: boolean;
}

/**
 * Writes `data` to a fresh temp file beside `target`, fsyncs it, then renames it over `target`.
 * An existing file keeps its permission bits (and, when we may, its owner). Throws the raw fs error.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<AtomicWriteResult> {
  const existing = await statIfExists(target);
  const dir = path.dirname(target);
  // Same directory, so the rename never crosses a filesystem; O_EXCL plus random bytes keeps
  // concurrent writers from sharing a temp file.
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', mode);
    await handle.writeFile(data);
    if (existing) {
      // The umask applied at open may have dropped bits the old file had.
      await handle.chmod(mode);
      await keepOwner(handle, existing);
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
  return { created: existing === undefined };
}

async function statIfExists(target: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(target);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function keepOwner(handle: fs.FileHandle, existing: Stats): Promise<void> {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (existing.uid === uid && existing.gid === gid) return;
  // Only a privileged process may give a file away; otherwise the new file is simply ours.
  await handle.chown(existing.uid, existing.gid).catch(() => undefined);
}

/** Makes the rename durable; best effort, since some filesystems refuse to fsync a directory. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Durability of the directory entry is a bonus, not a condition of success.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
