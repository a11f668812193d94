// Presenting the built-in tools (native schemas, the SDK; `ptc tools` and `ptc sdk` as built) reads
// their precomputed JSON Schemas and imports none of their zod contracts; a tool's contract is
// imported at its first call, to parse its arguments (docs/builtin-tools.md, "Start-up"). Checked in
// real child processes with a load hook that lists the modules they load.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;

/** A directory with a load hook that lists every module a process loads in `list`; `recorder` is its --import. */
function moduleRecorder(): { dir: string; list: string; recorder: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-contracts-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const list = join(dir, 'modules.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) {\n` +
      `  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, new URL(url).pathname + '\\n');\n` +
      `  return next(url, context);\n}\n`,
  );
  const recorder = pathToFileURL(join(dir, 'record.mjs')).href;
  writeFileSync(join(dir, 'record.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(list, '');
  return { dir, list, recorder };
}

/** Contract modules (not the generated schemas, not the zod-free texts) among loaded files. */
const contractModules = (files: readonly string[]) =>
  files.filter((l) => /\/builtin-tools\/contracts\//.test(l) && !/\/(schemas\.generated|run-code-text)\.[jt]s$/.test(l));

describe('built-in tool contracts at start-up', () => {
  it.each(['tools', 'sdk', 'tools --preset minimal', 'sdk --lang py'])('`ptc %s` (built) loads no contract', (line) => {
    const args = line.split(' ');
    const { dir, list, recorder } = moduleRecorder();
    const run = spawnSync(process.execPath, ['--import', recorder, join(root, 'dist/cli/ptc.cjs'), ...args], {
      cwd: dir,
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const files = readFileSync(list, 'utf8').split('\n');
    expect(files.some((l) => l.endsWith('/dist/builtin-tools/contracts/schemas.generated.js'))).toBe(true);
    expect(contractModules(files)).toEqual([]);
  });

  it('presenting the catalog imports no contract; the first read call imports read’s only', () => {
    const { list, recorder } = moduleRecorder();
    const run = spawnSync(process.execPath, ['--import', register, '--import', recorder, join(root, 'test/fixtures/builtin-contracts-host.mjs')], {
      env: { ...process.env, MODULE_LIST: list },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);

    const lines = readFileSync(list, 'utf8').split('\n');
    const presented = lines.findIndex((l) => l.startsWith('@presented '));
    const called = lines.findIndex((l) => l.startsWith('@called '));
    expect(presented).toBeGreaterThan(0);
    expect(called).toBeGreaterThan(presented);
    // 11 tools presented, a non-empty SDK, and the call succeeded.
    expect(lines[presented]).toMatch(/^@presented 11 [1-9]\d*$/);
    expect(lines[called]).toBe('@called ok');

    const contracts = (from: number, to: number) => contractModules(lines.slice(from, to));
    expect(lines.slice(0, presented).some((l) => l.endsWith('/src/builtin-tools/contracts/schemas.generated.ts'))).toBe(true);
    expect(contracts(0, presented)).toEqual([]);
    expect(contracts(presented, called).map((l) => l.slice(l.indexOf('/src/')))).toEqual(['/src/builtin-tools/contracts/read.ts']);
  });
});
