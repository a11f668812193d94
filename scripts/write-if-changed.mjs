// Writes `text` to `target` only when the file's text differs, through a temporary file and a rename,
// so a failed run leaves the old file whole and an unchanged one keeps its mtime (the build steps
// that generate source files use it). Returns whether it wrote.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export function writeIfChanged(target, text) {
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) return false;
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
  return true;
}
