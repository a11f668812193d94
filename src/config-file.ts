// Reading a small configuration file the user named (a preset, an MCP config): bounded in size, and
// every failure a CONFIG error that names the file, so no caller repeats the stat/read/ENOENT dance.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors.js';

/**
 * The text of `file` (resolved against the current directory) with its absolute path. `what` names
 * the kind of file as it reads mid-sentence ("preset file", "MCP config"); `tooLargeHint` says why it must be small.
 */
export function readConfigText(file: string, what: string, maxBytes: number, tooLargeHint: string): { absolute: string; text: string } {
  const absolute = path.resolve(file);
  try {
    const size = fs.statSync(absolute).size;
    if (size > maxBytes) throw new ConfigError(`${what.charAt(0).toUpperCase()}${what.slice(1)} ${absolute} is ${size} bytes, more than ${maxBytes}; ${tooLargeHint}.`);
    return { absolute, text: fs.readFileSync(absolute, 'utf8') };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (error as Error).message;
    throw new ConfigError(`Cannot read ${what} ${absolute}: ${reason}.`);
  }
}
