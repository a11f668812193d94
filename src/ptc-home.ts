// Where a user's own ptc state lives: their presets, their trust store, the compile cache. Its own
// file, free of heavy imports, so the CLI entry can find it before anything else loads.

import os from 'node:os';
import path from 'node:path';

/** `$PTC_HOME` (a leading `~/` expanded, relative to the cwd), else `~/.ptc`. */
export function ptcHome(search: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv; readonly homedir?: string }): string {
  const home = search.homedir ?? os.homedir();
  const value = (search.env ?? process.env)['PTC_HOME'];
  if (!value) return path.join(home, '.ptc');
  const expanded = value === '~' ? home : value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
  return path.resolve(search.cwd ?? process.cwd(), expanded);
}
