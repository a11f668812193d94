// `prepare` (npm ci, npm pack, and the first `npx ptc` of a clone, which installs the clone into
// npx's cache and runs prepare again): builds dist/ only when a source is newer than the build, so
// running `ptc` never waits for a rebuild of what is already built (issue 27). The check is a stat
// of each file under src/ (a language pack's .py or .sh files included) and the tsconfig files, a
// few milliseconds; `npm run build` always builds.

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The bin, the build's last step: a build stopped halfway is rebuilt.
const built = join(root, 'dist/cli/ptc.cjs');

function newestInput() {
  let newest = 0;
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.(?:ts|mts|cts|json|py|sh)$/.test(entry.name)) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function builtAt() {
  try {
    return statSync(built).mtimeMs;
  } catch {
    return undefined;
  }
}

const at = builtAt();
if (at !== undefined && at >= newestInput()) {
  console.log('dist/ is up to date with src/; not rebuilding (npm run build forces a build).');
} else {
  const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
}
