// Descriptor-relative filesystem primitives for the file tools (docs/file-tools.md). Node has no
// openat(2), but Linux resolves `/proc/self/fd/<dirfd>/<name>` like openat(dirfd, name): the magic
// link names the directory object we hold, not a path a program could swap. Every helper here acts
// on an object we already opened, so a check and the use that follows it see the same object.

import * as fs from 'node:fs';
import { promisify } from 'node:util';

const { O_RDONLY, O_WRONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_CREAT, O_EXCL } = fs.constants;

/** A directory, opened without following a symlink as its last component. */
export const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/** Any object, opened for reading without following a final symlink; O_NONBLOCK so a FIFO cannot hang the open. */
export const LEAF_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
/** A fresh temp file that must not exist yet and must not be reached through a symlink. */
export const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

const readAsync = promisify(fs.read);
const writeAsync = promisify(fs.write);

/** The path that resolves `name` inside the directory `dirFd` refers to (like openat). */
export function at(dirFd: number, name: string): string {
  return `/proc/self/fd/${dirFd}/${name}`;
}

/** Where the object behind `fd` really is now (the kernel's name for it). */
export function realPathOfFd(fd: number): string {
  return fs.readlinkSync(`/proc/self/fd/${fd}`);
}

/** The text of the symlink `name` in `dirFd`, or undefined when `name` is not a symlink (or is gone). */
export function readLinkAt(dirFd: number, name: string): string | undefined {
  try {
    return fs.readlinkSync(at(dirFd, name));
  } catch {
    return undefined;
  }
}

export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed or never valid: nothing to release.
  }
}

/** The errno code of a Node fs error, if any. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Reads the whole object behind `fd` from its start, at most `maxBytes` (undefined when it holds
 * more, e.g. because it grew after a size check).
 */
export async function readAllFd(fd: number, maxBytes: number, sizeHint: number): Promise<Buffer | undefined> {
  let buffer = Buffer.allocUnsafe(Math.min(Math.max(sizeHint, 0), maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return undefined;
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const { bytesRead } = await readAsync(fd, buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length > maxBytes ? undefined : buffer.subarray(0, length);
}

/** Writes all of `data` to `fd` from its current position. */
export async function writeAllFd(fd: number, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.byteLength) {
    const { bytesWritten } = await writeAsync(fd, data, offset, data.byteLength - offset);
    offset += bytesWritten;
  }
}

/** True when a failed O_NOFOLLOW open means "this is a symlink" (or was swapped for one). */
export function isLinkRefusal(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK';
}
