// The package's bin, dist/cli/ptc.cjs, is dist/cli/main.js bundled into CommonJS for a faster start
// (scripts/bundle-bin.mjs; docs/benchmarks.md, "CLI start-up"). Both must be the same command: the
// same output, errors and exit codes, on the quick path (answered inside the bundle) and past it
// (run-cli.js and the command modules, loaded by the bundle's import()).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundled = path.join(root, 'dist/cli/ptc.cjs');
const esm = path.join(root, 'dist/cli/main.js');
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bin-bundle-'));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));
fs.writeFileSync(path.join(workspace, 'p.ts'), 'console.log("from the program"); return { n: 2 };\n');
fs.writeFileSync(path.join(workspace, 'bad.ts'), 'throw new Error("on purpose");\n');

function run(bin: string, args: readonly string[], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workspace, PTC_NO_EXEC_SERVER: '1', ...extraEnv },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the bundled bin', () => {
  it('is an executable CommonJS file with a shebang, named by package.json', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: { ptc: string } };
    expect(manifest.bin.ptc).toBe('dist/cli/ptc.cjs');
    expect(fs.readFileSync(bundled, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(fs.statSync(bundled).mode & 0o111).not.toBe(0);
  });

  // `tools` twice: the second time from the output cache.
  it.each(['--version', '--help', 'exec --help', 'help sessions', 'tools', 'tools', 'sdk', 'exec p.ts', 'exec bad.ts', 'nosuchcommand', 'exec missing.ts'])(
    'answers `ptc %s` exactly as dist/cli/main.js does',
    (line) => {
      const args = line.split(' ');
      const fromEsm = run(esm, args);
      const fromBundle = run(bundled, args);
      expect(fromBundle).toEqual(fromEsm);
      expect(fromBundle.stdout + fromBundle.stderr).not.toBe('');
    },
  );

  it('answers from the output cache with the same entry main.js wrote, and a miss with the cache off', () => {
    const cacheDir = path.join(workspace, '.ptc', 'cache', 'output');
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const first = run(esm, ['tools']);
    const entries = fs.readdirSync(cacheDir);
    expect(entries).toHaveLength(1);
    // The bundle computes the same slot (key and file), so it reads main.js's entry and writes none.
    expect(run(bundled, ['tools'])).toEqual(first);
    expect(fs.readdirSync(cacheDir)).toEqual(entries);
    expect(run(bundled, ['tools'], { PTC_NO_OUTPUT_CACHE: '1' })).toEqual(first);
  });
});
