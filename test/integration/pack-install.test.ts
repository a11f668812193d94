// Publish-ready (issue 27): the tarball `npm pack` makes installs into a fresh project and into a
// global prefix, and the `ptc` it installs works from there with no build step: `ptc --help`,
// `ptc tools` and a `ptc exec` whose program calls a tool, each with nothing on stderr. The tarball
// alone is enough: the project and the prefix are new, with no link to this checkout, and npm
// fetches the dependencies as for any user (from its cache when it has them, else the registry).
// dist/ is the one the global setup built, as `prepare` builds it at `npm ci`; packing with
// --ignore-scripts only skips building it a second time.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const INSTALL_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 60_000;

const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const npmMissing = npmVersion.status !== 0;
const pythonMissing = spawnSync('python3', ['--version'], { encoding: 'utf8' }).status !== 0;
if (pythonMissing) console.warn('The npm pack install test skips its `ptc exec list.py` step: python3 is not installed here (apt-get install python3).');
if (npmMissing) console.warn(`Skipping the npm pack install test: npm is not available here (${npmVersion.error?.message ?? npmVersion.stderr}).`);

/** npm's environment without the npm_* variables a parent `npm test` sets, which would steer the child npm. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

function npm(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * npm's warnings during an install that are not about what this package ships, each with why it is
 * expected; any other npm warning fails the test:
 * - EBADENGINE for amaro below Node 22: every amaro release declares engines node >= 22; it is the
 *   TypeScript eraser Node 20 needs, and it works there (test/integration/cli.test.ts runs it).
 * - install-scripts naming ptc-harness's `prepare` (the clone's build): npm 11.16+ lists `prepare` of
 *   a non-registry source such as a local tarball, though it does not run it for a tarball (the
 *   installs here work without it); the same package from a registry is not listed.
 */
function unexpectedWarnings(stderr: string): string[] {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  return stderr
    .split('\n')
    .filter((line) => /^npm (warn|err)/i.test(line))
    .filter((line) => {
      if (/^npm warn EBADENGINE(\s|$)/.test(line)) {
        if (nodeMajor >= 22) return true;
        const named = /package: '([^']+)'/.exec(line);
        return named !== null && !named[1]!.startsWith('amaro@');
      }
      if (/^npm warn install-scripts(\s|$)/.test(line)) {
        const named = /^npm warn install-scripts\s+(\S+@\S+) \(/.exec(line);
        return named !== null && !named[1]!.startsWith('ptc-harness@');
      }
      return true;
    });
}

describe.skipIf(npmMissing)('npm pack, installed into a fresh project and a global prefix', () => {
  let tmp: string;
  let tarball: string;
  let packedFiles: string[];
  let workspace: string;
  let home: string;
  const installs: { where: string; bin: string; npmStderr: string }[] = [];

  beforeAll(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-pack-')));
    const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], root);
    expect(pack.code, pack.stderr).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
    tarball = path.join(tmp, packed.filename);
    packedFiles = packed.files.map((f) => f.path);

    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'ptc-pack-probe', version: '1.0.0', private: true }, null, 2)}\n`);
    const prefix = path.join(tmp, 'global');
    const flags = ['--prefer-offline', '--no-audit', '--no-fund'];
    // The two installs share npm's cache, which takes concurrent writers.
    const [local, global] = await Promise.all([
      npm(['install', ...flags, tarball], project),
      npm(['install', '--global', '--prefix', prefix, ...flags, tarball], tmp),
    ]);
    expect(local.code, local.stderr).toBe(0);
    expect(global.code, global.stderr).toBe(0);
    installs.push({ where: 'a fresh project', bin: path.join(project, 'node_modules/.bin/ptc'), npmStderr: local.stderr });
    installs.push({ where: 'a global prefix', bin: path.join(prefix, 'bin/ptc'), npmStderr: global.stderr });

    workspace = path.join(tmp, 'workspace');
    home = path.join(tmp, 'home');
    fs.mkdirSync(workspace);
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(workspace, 'note.txt'), 'packed\n');
    fs.writeFileSync(path.join(workspace, 'list.ts'), 'const found = await tools.glob({ pattern: "*.txt" });\nreturn found.files;\n');
    fs.writeFileSync(path.join(workspace, 'list.py'), 'found = await tools.glob({"pattern": "*.txt"})\nreturn found["files"]\n');
  }, INSTALL_TIMEOUT_MS);

  // Two installed dependency trees: removing them takes a while on a loaded machine.
  afterAll(() => {
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  }, INSTALL_TIMEOUT_MS);

  /** The installed `ptc` run as its own executable (shebang and bin link), as a user's shell runs it. */
  function ptc(bin: string, args: readonly string[]) {
    const run = spawnSync(bin, args, {
      cwd: workspace,
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home },
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, error: run.error };
  }

  it('packs the built CLI, the presets and the UI client, and no sources that would need a build', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining(['package.json', 'dist/cli/main.js', 'dist/cli/ptc.cjs', 'dist/cli/help.json', 'dist/index.js', 'presets/ptc.yml', 'dist/languages/python/runtime/child/bootstrap.py']),
    );
    const sources = packedFiles.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts') && !file.startsWith('src/ui/client/'));
    expect(sources).toEqual([]);
    expect(packedFiles.filter((file) => file.startsWith('test/') || file === 'tsconfig.json')).toEqual([]);
  });

  it('installs with no npm warning about its contents', () => {
    for (const install of installs) expect(unexpectedWarnings(install.npmStderr), install.where).toEqual([]);
  });

  it.each(['a fresh project', 'a global prefix'])('runs ptc --help, ptc tools and ptc exec installed in %s, with nothing on stderr', (where) => {
    const install = installs.find((i) => i.where === where)!;
    expect(fs.existsSync(install.bin), `${install.where}: ${install.bin}`).toBe(true);
    // The package resolves its own files from where it is installed, not from this checkout.
    expect(fs.realpathSync(install.bin).startsWith(tmp), install.where).toBe(true);

    const help = ptc(install.bin, ['--help']);
    expect(help.error, install.where).toBeUndefined();
    expect({ code: help.code, stderr: help.stderr }, install.where).toEqual({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: ptc');
    expect(help.stdout).toMatch(/^ {2}exec \[options\] <file>/m);
    // The install's file times are its own: the precomputed help still counts as this build's.
    const fastStart = path.join(path.dirname(fs.realpathSync(install.bin)), 'fast-start.js');
    const probe = spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(fastStart)}); process.stdout.write(m.fastAnswer(['--help'], { isTTY: false }) ?? 'commander');`], {
      encoding: 'utf8',
    });
    expect(probe.stdout, install.where).toBe(help.stdout);

    const tools = ptc(install.bin, ['tools']);
    expect({ code: tools.code, stderr: tools.stderr }, install.where).toEqual({ code: 0, stderr: '' });
    expect(tools.stdout).toContain('# preset ptc');
    expect(tools.stdout).toMatch(/^glob {2}\(parallel\)/m);

    const exec = ptc(install.bin, ['exec', 'list.ts']);
    expect({ code: exec.code, stderr: exec.stderr }, install.where).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(exec.stdout)).toEqual(['note.txt']);

    // A Python program: its bootstrap is the package's own .py file, copied into dist by the build.
    if (!pythonMissing) {
      const py = ptc(install.bin, ['exec', 'list.py']);
      expect({ code: py.code, stderr: py.stderr }, install.where).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(py.stdout)).toEqual(['note.txt']);
    }
  });

  it("imports the root and every subpath entry from the installed package, each with what its area needs", () => {
    const install = installs.find((i) => i.where === 'a fresh project')!;
    const project = path.dirname(path.dirname(path.dirname(install.bin)));
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.keys(manifest.exports).map((key) => (key === '.' ? 'ptc-harness' : `ptc-harness/${key.slice(2)}`));
    const probe = [
      `const entries = ${JSON.stringify(entries)};`,
      'const out = {};',
      'for (const entry of entries) out[entry] = Object.keys(await import(entry)).length;',
      'console.log(JSON.stringify(out));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home } });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const counts = JSON.parse(run.stdout) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual([...entries].sort());
    for (const entry of entries) expect(counts[entry], entry).toBeGreaterThan(0);
    expect(entries).toEqual(expect.arrayContaining(['ptc-harness/mcp', 'ptc-harness/eval', 'ptc-harness/ui', 'ptc-harness/acp', 'ptc-harness/ai-sdk']));
  });

  it('installs no queue packages; ptc worker then says how to add them (CONFIG, exit 2), with no stack trace', () => {
    const install = installs.find((i) => i.where === 'a fresh project')!;
    expect(fs.existsSync(path.join(path.dirname(path.dirname(install.bin)), 'bullmq'))).toBe(false);
    const worker = ptc(install.bin, ['worker', '--queue', 'redis://127.0.0.1:9/0']);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain('bullmq');
    expect(worker.stderr).toContain('npm install bullmq@5');
    expect(worker.stderr).not.toMatch(/\n\s+at /);
  });
});
