// Builds dist/ once before the tests, so tests that run the real `ptc` binary or the built child
// bootstrap exercise the current sources, exactly as `npm ci` (prepare -> build) leaves them. Also
// says once whether the bubblewrap tests run (see test/helpers/bwrap.ts).

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { probeSandbox } from '../src/sandbox/index.js';

export default async function setup(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    // The rest of `npm run build`: the language packs' own files (a Python bootstrap), and the
    // precomputed --help texts (src/cli/help-text.ts), and the bin bundled from dist/cli/main.js
    // (scripts/bundle-bin.mjs), which the tests run as users do.
    execFileSync(process.execPath, [path.join(root, 'scripts/copy-language-files.mjs')], { cwd: root, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(root, 'scripts/build-cli-help.mjs')], { cwd: root, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(root, 'scripts/bundle-bin.mjs')], { cwd: root, stdio: 'inherit' });
  } catch {
    // tsc still emits what it can. `npm test` type-checks everything before vitest starts, so a type
    // error fails the run there; here it must not stop tests of unrelated files while a change is in
    // progress (tests of dist/ may then see the partial build).
    console.warn('\nThe build of dist/ reported type errors (above); tests of the built CLI may fail.\n');
  }
  const probe = await probeSandbox();
  if (probe.bwrapPath !== undefined) return;
  if (process.env['PTC_REQUIRE_BWRAP'] === '1') {
    throw new Error(`PTC_REQUIRE_BWRAP=1 but bubblewrap is unusable here: ${probe.detail ?? 'unknown reason'}.`);
  }
  console.warn(
    `\nSkipping the tests that need bubblewrap: ${probe.detail ?? 'unknown reason'}. ` +
      'Install it (apt-get install bubblewrap) to run them; CI sets PTC_REQUIRE_BWRAP=1 and fails instead.\n',
  );
}
