// The directory view of `str_replace_editor`: entries two levels below a directory the policy
// accepted, hidden ones skipped, listed and entered only through descriptors (docs/file-tools.md), so a
// subdirectory swapped for a symlink after the listing is not followed.

import * as fs from 'node:fs';

import { MAX_EDITOR_LISTING_ENTRIES } from './limits.js';
import { describeFsError } from './fs-errors.js';
import type { OpenedPath } from './path-resolver.js';
import { DIR_FLAGS, at, closeQuietly } from './safe-fs.js';
import { compareStrings } from './walk-files.js';

/** Two levels below an opened directory, hidden entries skipped, entered only through descriptors. */
export async function listDirectory(dir: OpenedPath): Promise<string> {
  const prefix = dir.display === '.' ? '' : `${dir.display.replace(/\/$/, '')}/`;
  const entries: string[] = [];
  let more = false;
  const list = async (fd: number): Promise<fs.Dirent[]> =>
    (await fs.promises.readdir(`/proc/self/fd/${fd}`, { withFileTypes: true }))
      .filter((entry) => !entry.name.startsWith('.'))
      .sort((a, b) => compareStrings(a.name, b.name));
  let top: fs.Dirent[];
  try {
    top = await list(dir.fd as number);
  } catch (error) {
    throw describeFsError(error, dir.display, 'list');
  }
  for (const entry of top) {
    if (entries.length >= MAX_EDITOR_LISTING_ENTRIES) {
      more = true;
      break;
    }
    const isDir = entry.isDirectory();
    entries.push(`${prefix}${entry.name}${isDir ? '/' : ''}`);
    if (!isDir) continue;
    let childFd: number | undefined;
    try {
      // O_NOFOLLOW: a directory swapped for a symlink since the listing is not entered.
      childFd = fs.openSync(at(dir.fd as number, entry.name), DIR_FLAGS);
      for (const child of await list(childFd)) {
        if (entries.length >= MAX_EDITOR_LISTING_ENTRIES) {
          more = true;
          break;
        }
        entries.push(`${prefix}${entry.name}/${child.name}${child.isDirectory() ? '/' : ''}`);
      }
    } catch {
      // A subdirectory that vanished or refuses us is listed without its contents.
    } finally {
      closeQuietly(childFd);
    }
  }
  const header = `Here are the files and directories up to 2 levels deep in ${dir.display}, excluding hidden items:`;
  if (entries.length === 0) return `${header}\n(empty)`;
  const note = more ? `\n[Listing stopped at ${MAX_EDITOR_LISTING_ENTRIES} entries: view a subdirectory to see more.]` : '';
  return `${header}\n${entries.join('\n')}${note}`;
}
