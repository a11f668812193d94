// Replacing a small state file (the trust store, a config file) so a reader sees the old text or the
// new one, never half of either: a fresh temp file beside it, fsynced, renamed over it. The temp
// name is random and opened with O_EXCL ('wx'), so a file or link someone placed there is never
// written through. Throws the raw fs error with no temp file left; callers say what to fix.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` in one rename; `dirMode` for a directory it creates, `mode` for the file. */
export function replaceFile(file: string, text: string, mode: number, dirMode = 0o700): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: dirMode });
    const fd = fs.openSync(temp, 'wx', mode);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
