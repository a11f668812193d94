// Writing and pruning the CLI's cache files (`$PTC_HOME/cache/*`: the output cache, the exec guesses,
// the strips; docs/benchmarks.md, "CLI start-up"). Its own file with no imports beyond node:, so the
// lookups that use it stay cheap.

import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes `text` to `file` atomically (a reader sees the old content or the new, never half), in a
 * directory of mode 0700 made when missing. Quiet: a cache that cannot be written is only slower.
 */
export function writeCacheFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, text, { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/** Keeps the newest `max` entries (`.json` files) of `dir`: each build, directory or program makes its own. */
export function pruneCacheDir(dir: string, max: number): void {
  try {
    const entries = fs.readdirSync(dir).filter((name) => name.endsWith('.json'));
    if (entries.length <= max) return;
    const byAge = entries.map((name) => ({ name, at: fs.statSync(path.join(dir, name)).mtimeMs })).sort((a, b) => b.at - a.at);
    for (const { name } of byAge.slice(max)) fs.rmSync(path.join(dir, name), { force: true });
  } catch {
    // Another command pruning at the same time, or an unreadable entry: the next miss tries again.
  }
}
