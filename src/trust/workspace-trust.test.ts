// The trust rule from the library's side (docs/presets.md, "Trust"): what the digest covers, the
// store, createHarness's default and its explicit option, and the one terminal question.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askWorkspaceTrust, type TrustQuestionIo } from '../cli/trust-command.js';
import { HarnessError } from '../errors.js';
import { createHarness } from '../harness.js';
import { readTrustStore, recordTrust, revokeTrust, trustStorePath } from './trust-store.js';
import { collectWorkspaceConfig, describeWorkspaceConfig } from './workspace-config.js';
import { checkWorkspaceTrust } from './workspace-trust.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-trust-unit-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let count = 0;

/** A workspace with a workspace-only preset `repo` whose plugin leaves `marker` when imported. */
function workspace(): { dir: string; home: string; env: Record<string, string>; marker: string } {
  const dir = path.join(base, `ws-${++count}`);
  const home = path.join(base, `home-${count}`);
  const marker = path.join(base, `marker-${count}`);
  fs.mkdirSync(path.join(dir, '.ptc', 'presets'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.ptc', 'presets', 'repo.yml'),
    'description: repo\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: ../../plugin.mjs\n  - name: mcp\n    config: { mcpServers: { x: { command: "sh", args: ["-c", "exit 1"] } } }\n',
  );
  fs.writeFileSync(path.join(dir, 'plugin.mjs'), `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, '');\nexport const name = 'p';\nexport function apply() {}\n`);
  return { dir, home, env: { PTC_HOME: home }, marker };
}

describe('the configuration a workspace would load', () => {
  it('lists preset files, plugin files and mcp commands; the digest follows their content', () => {
    const ws = workspace();
    const config = collectWorkspaceConfig(ws.dir, { env: ws.env });
    expect(config.empty).toBe(false);
    expect(config.presets.map((p) => p.file)).toEqual([path.join(ws.dir, '.ptc/presets/repo.yml')]);
    expect(config.plugins).toEqual([{ file: path.join(ws.dir, 'plugin.mjs'), missing: false }]);
    expect(config.commands).toEqual([`${path.join(ws.dir, '.ptc/presets/repo.yml')}:6 server \`x\`: sh -c 'exit 1'`]);
    fs.appendFileSync(path.join(ws.dir, 'plugin.mjs'), '// changed\n');
    expect(collectWorkspaceConfig(ws.dir, { env: ws.env }).digest).not.toBe(config.digest);
  });

  it('a workspace without .ptc/presets or package rows needs no trust', () => {
    const dir = path.join(base, 'plain');
    fs.mkdirSync(dir);
    expect(checkWorkspaceTrust(dir, { env: { PTC_HOME: path.join(base, 'plain-home') } }).state).toBe('nothing');
  });
});

describe('the trust store', () => {
  it('is written 0600 and keyed by real path; a change of files reads as changed; revoke forgets', () => {
    const ws = workspace();
    expect(checkWorkspaceTrust(ws.dir, { env: ws.env }).state).toBe('untrusted');
    const config = collectWorkspaceConfig(ws.dir, { env: ws.env });
    recordTrust(ws.home, config.workspace, config.digest);
    expect(fs.statSync(trustStorePath(ws.home)).mode & 0o777).toBe(0o600);
    // The same workspace through a symlink is the same workspace.
    const link = path.join(base, `link-${count}`);
    fs.symlinkSync(ws.dir, link);
    expect(checkWorkspaceTrust(link, { env: ws.env }).state).toBe('trusted');
    fs.writeFileSync(path.join(ws.dir, '.ptc/presets/more.yml'), 'description: more\nplugins:\n  - name: builtin-tools\n');
    expect(checkWorkspaceTrust(ws.dir, { env: ws.env }).state).toBe('changed');
    expect(revokeTrust(ws.home, config.workspace)).toBe(true);
    expect(readTrustStore(ws.home)).toEqual({});
  });

  it('a store that is not valid JSON trusts nothing', () => {
    const ws = workspace();
    fs.mkdirSync(ws.home, { recursive: true });
    fs.writeFileSync(trustStorePath(ws.home), '{"version":1,"workspaces":{');
    expect(checkWorkspaceTrust(ws.dir, { env: ws.env }).state).toBe('untrusted');
  });
});

describe('createHarness', () => {
  it('refuses an untrusted workspace preset by name with CONFIG, importing nothing; trustWorkspace: true loads it', async () => {
    const ws = workspace();
    const refused = await createHarness({ cwd: ws.dir, preset: 'repo', env: ws.env }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HarnessError);
    expect((refused as HarnessError).code).toBe('CONFIG');
    expect((refused as HarnessError).message).toContain(`\`ptc trust ${ws.dir}\``);
    expect(fs.existsSync(ws.marker)).toBe(false);
    // Control: the explicit option (the mcp row then fails to start, after the plugin ran).
    await expect(createHarness({ cwd: ws.dir, preset: 'repo', env: ws.env, trustWorkspace: true })).rejects.toThrow(/row 3 `mcp` failed/);
    expect(fs.existsSync(ws.marker)).toBe(true);
  });

  it('a workspace file shadowing a shipped name: the shipped preset, with one note', async () => {
    const ws = workspace();
    fs.copyFileSync(path.join(ws.dir, '.ptc/presets/repo.yml'), path.join(ws.dir, '.ptc/presets/minimal.yml'));
    const notes: string[] = [];
    const harness = await createHarness({ cwd: ws.dir, preset: 'minimal', env: ws.env, onNote: (line) => notes.push(line) });
    try {
      expect(harness.preset.origin).toBe('shipped');
      expect(notes).toEqual([expect.stringContaining(`ignored ${path.join(ws.dir, '.ptc/presets/minimal.yml')}`)]);
      expect(fs.existsSync(ws.marker)).toBe(false);
    } finally {
      await harness.dispose();
    }
  });
});

describe('a workspace too large to review', () => {
  it('is not trusted, and a shadowed shipped name still runs (a program cannot break every command there)', async () => {
    const ws = workspace();
    fs.copyFileSync(path.join(ws.dir, '.ptc/presets/repo.yml'), path.join(ws.dir, '.ptc/presets/minimal.yml'));
    for (let i = 0; i < 210; i++) fs.writeFileSync(path.join(ws.dir, '.ptc/presets', `filler-${i}.txt`), `${i}`);
    expect(() => collectWorkspaceConfig(ws.dir, { env: ws.env })).toThrow(/more than 200 configuration files/);
    const notes: string[] = [];
    const harness = await createHarness({ cwd: ws.dir, preset: 'minimal', env: ws.env, onNote: (line) => notes.push(line) });
    try {
      expect(harness.preset.origin).toBe('shipped');
      expect(notes[0]).toContain('cannot be reviewed');
    } finally {
      await harness.dispose();
    }
    await expect(createHarness({ cwd: ws.dir, preset: 'repo', env: ws.env })).rejects.toThrow(/cannot be reviewed/);
    expect(fs.existsSync(ws.marker)).toBe(false);
  });
});

describe('the terminal question', () => {
  const io = (answer: string, interactive = true): TrustQuestionIo & { written: string[]; asked: number } => {
    const state = { written: [] as string[], asked: 0 };
    return Object.assign(state, {
      interactive,
      env: {},
      write: (text: string) => void state.written.push(text),
      ask: async () => {
        state.asked++;
        return answer;
      },
    });
  };

  it('shows the list and records trust on y; n and a non-terminal record nothing', async () => {
    const ws = workspace();
    const no = { ...io('n'), env: ws.env };
    await askWorkspaceTrust('repo', ws.dir, no);
    expect(readTrustStore(ws.home)).toEqual({});
    const quiet = { ...io('y', false), env: ws.env };
    await askWorkspaceTrust('repo', ws.dir, quiet);
    expect(readTrustStore(ws.home)).toEqual({});
    const yes = io('y');
    await askWorkspaceTrust('repo', ws.dir, { ...yes, env: ws.env });
    expect(yes.asked).toBe(1);
    expect(yes.written.join('')).toContain('plugin.mjs');
    expect(checkWorkspaceTrust(ws.dir, { env: ws.env }).state).toBe('trusted');
    // A shipped name or a path is not asked about.
    const other = io('y');
    await askWorkspaceTrust('ptc', ws.dir, { ...other, env: ws.env });
    expect(other.asked).toBe(0);
  });
});

describe('what trusted plugin files import', () => {
  it('the digest covers static imports (relative, bare into the workspace, require, literal import()), the candidates before them, and every file of a workspace package', () => {
    const ws = workspace();
    const plugin = path.join(ws.dir, 'plugin.mjs');
    fs.writeFileSync(
      plugin,
      "import { x } from './util.mjs';\nimport helper from 'helper';\nconst later = () => import('./later.mjs');\nconst name2 = 'x';\nconst computed = () => import(`./${name2}.mjs`);\n" +
        "export const name = 'p';\nexport function apply() {}\n",
    );
    fs.writeFileSync(path.join(ws.dir, 'util.mjs'), "export { y as x } from './deep';\n");
    fs.mkdirSync(path.join(ws.dir, 'deep'));
    fs.writeFileSync(path.join(ws.dir, 'deep', 'index.mjs'), "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const y = require('./data.cjs');\n");
    fs.writeFileSync(path.join(ws.dir, 'deep', 'data.cjs'), 'module.exports = 1;\n');
    fs.writeFileSync(path.join(ws.dir, 'later.mjs'), 'export {};\n');
    const pkg = path.join(ws.dir, 'node_modules', 'helper');
    fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"helper","main":"index.js"}');
    fs.writeFileSync(path.join(pkg, 'index.js'), 'module.exports = require(process.env.X || "./lib/a.js");\n');
    fs.writeFileSync(path.join(pkg, 'lib', 'a.js'), "module.exports = require('dep');\n");
    const config = collectWorkspaceConfig(ws.dir, { env: ws.env });
    const rel = (list: readonly string[]) => list.map((f) => path.relative(ws.dir, f));
    expect(rel(config.imported)).toEqual(['deep/data.cjs', 'deep/index.mjs', 'later.mjs', 'node_modules/helper/index.js', 'node_modules/helper/lib/a.js', 'node_modules/helper/package.json', 'util.mjs']);
    expect(config.packages.map((p) => `${p.name} ${p.namedAt.join(',')}`)).toEqual([`helper ${plugin}`]);
    expect(rel(config.computed)).toEqual(['plugin.mjs:5', 'node_modules/helper/index.js:1']);
    const listing = describeWorkspaceConfig(config);
    expect(listing).toContain('modules those import');
    expect(listing).toContain('    deep/data.cjs');
    expect(listing).toContain('    plugin.mjs:5');
    // Each of these changes what the host would import, so each changes the digest.
    const changes: [string, () => void][] = [
      ['util.mjs edited', () => fs.appendFileSync(path.join(ws.dir, 'util.mjs'), '// edited\n')],
      ['a required file edited', () => fs.appendFileSync(path.join(ws.dir, 'deep', 'data.cjs'), '// edited\n')],
      ['a package file no import names', () => fs.writeFileSync(path.join(pkg, 'lib', 'b.js'), 'x\n')],
      ['a file where Node looks first (deep.js before deep/index.mjs)', () => fs.writeFileSync(path.join(ws.dir, 'deep.js'), 'x\n')],
      ['a package a bare import finds nowhere yet, installed in the workspace', () => fs.mkdirSync(path.join(ws.dir, 'node_modules', 'dep'))],
    ];
    let before = config.digest;
    for (const [what, change] of changes) {
      change();
      const after = collectWorkspaceConfig(ws.dir, { env: ws.env }).digest;
      expect(after, what).not.toBe(before);
      before = after;
    }
  });
});

describe('the library loadPreset', () => {
  it('does not let an untrusted workspace shadow a shipped preset; the explicit trust option reads the workspace file', async () => {
    const { loadPreset } = await import('../index.js');
    const ws = workspace();
    fs.writeFileSync(path.join(ws.dir, '.ptc', 'presets', 'ptc.yml'), 'description: shadow\nplugins:\n  - name: ../../plugin.mjs\n');
    const notes: string[] = [];
    const loaded = loadPreset('ptc', { workspace: ws.dir, env: ws.env, onNote: (line) => notes.push(line) });
    expect(loaded.origin).toBe('shipped');
    expect(notes.join('\n')).toContain(path.join(ws.dir, '.ptc', 'presets', 'ptc.yml'));
    expect(notes.join('\n')).toContain('ptc trust');
    // A workspace-only name is CONFIG naming the file and the command.
    expect(() => loadPreset('repo', { workspace: ws.dir, env: ws.env })).toThrow(/repo\.yml[\s\S]*ptc trust/);
    // Control: the caller's explicit trust reads the workspace's file.
    expect(loadPreset('ptc', { workspace: ws.dir, env: ws.env, trustWorkspace: true }).origin).toBe('workspace');
    expect(fs.existsSync(ws.marker)).toBe(false);
  });
});
