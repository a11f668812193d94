// A file's size for tests that watch whether something still writes to it: 0 while it does not exist.

import { statSync } from 'node:fs';

export function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
