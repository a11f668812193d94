// Workspace trust (docs/security.md, "Workspace trust"), through the real `ptc` binary (dist/, plain
// node). A cloned repository carries `.ptc/presets/ptc.yml` (shadowing the shipped preset) whose rows
// are a plugin file, a package from the repository's own node_modules and an `mcp` row; each one
// creates a marker file on the host when it runs. For every entry point: nothing runs untrusted;
// after `ptc trust` the markers appear (the detector works); after a change under .ptc it refuses
// again. Also: a program writing such a preset, then `ptc tools`; a `$PTC_HOME` preset's package row
// resolving from the untrusted workspace; a workspace-only preset name is CONFIG (exit 2).

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-trust-')));
const home = path.join(base, 'ptc-home');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, PTC_HOME: home };
const MARKERS = ['mcp', 'package', 'plugin'];

interface Repo {
  readonly dir: string;
  /** The markers present on the host, sorted: [] when nothing of the repository ran. */
  markers(): string[];
  clear(): void;
  /** A change a program or a `git pull` could make: one more line in the plugin file. */
  change(): void;
}

let repos = 0;

/** The hostile preset's text: every row kind that runs code on the host, each leaving a marker. */
function hostilePreset(): string {
  return [
    'description: a cloned repository shadowing the shipped ptc preset',
    'plugins:',
    '  - name: builtin-tools',
    '    config: { tools: [read] }',
    '  - name: node-runtime',
    '  - name: tool-presentation',
    '    config: { mode: ptc }',
    '  - name: ./plugin.ts',
    '  - name: repo-helper',
    '  - name: mcp',
    '    config: { mcpServers: { repo: { command: node, args: [.ptc/presets/server.mjs] } } }',
    '',
  ].join('\n');
}

function writeHostileFiles(dir: string, markerDir: string): void {
  const marker = (kind: string) => JSON.stringify(path.join(markerDir, kind));
  fs.mkdirSync(path.join(dir, '.ptc', 'presets'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.ptc', 'presets', 'ptc.yml'), hostilePreset());
  fs.writeFileSync(
    path.join(dir, '.ptc', 'presets', 'plugin.ts'),
    `import fs from 'node:fs';\nfs.writeFileSync(${marker('plugin')}, 'ran');\nexport const name = 'repo-plugin';\nexport function apply(): void {}\n`,
  );
  fs.writeFileSync(
    path.join(dir, '.ptc', 'presets', 'server.mjs'),
    `import fs from 'node:fs';\nfs.writeFileSync(${marker('mcp')}, 'ran');\nawait import(${JSON.stringify(path.join(root, 'test/fixtures/mcp-list-changed-server.mjs'))});\n`,
  );
}

/** A fresh clone: its own directory, markers and (so far) no trust. */
function cloneRepo(): Repo {
  const dir = path.join(base, `repo-${++repos}`);
  const markerDir = path.join(base, `markers-${repos}`);
  fs.mkdirSync(markerDir, { recursive: true });
  writeHostileFiles(dir, markerDir);
  const pkg = path.join(dir, 'node_modules', 'repo-helper');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'repo-helper', type: 'module', main: 'index.js' }));
  fs.writeFileSync(
    path.join(pkg, 'index.js'),
    `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(path.join(markerDir, 'package'))}, 'ran');\nexport const name = 'repo-helper';\nexport function apply() {}\n`,
  );
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'sunny\n');
  return {
    dir,
    markers: () => fs.readdirSync(markerDir).sort(),
    clear: () => {
      for (const m of fs.readdirSync(markerDir)) fs.rmSync(path.join(markerDir, m));
    },
    change: () => fs.appendFileSync(path.join(dir, '.ptc', 'presets', 'plugin.ts'), '// updated\n'),
  };
}

function ptc(args: string[], options: { cwd: string; input?: string }) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: options.cwd, encoding: 'utf8', input: options.input ?? '', env });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The CLI without blocking this process's event loop (a model server may live here). */
function ptcAsync(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function trust(repo: Repo): void {
  const granted = ptc(['trust', repo.dir], { cwd: base });
  expect(granted.stderr).toBe('');
  expect(granted.code).toBe(0);
  // The list names every file and command that runs.
  for (const shown of ['.ptc/presets/ptc.yml', '.ptc/presets/plugin.ts', 'repo-helper', 'node .ptc/presets/server.mjs']) expect(granted.stdout).toContain(shown);
}

/**
 * The three steps for one entry point: untrusted nothing runs; trusted everything does (the
 * control); changed, nothing runs again. `attempt` returns the entry point's stderr.
 */
async function untrustedTrustedChanged(attempt: (repo: Repo) => Promise<string> | string, expectNote = true): Promise<void> {
  const repo = cloneRepo();
  const untrusted = await attempt(repo);
  expect(repo.markers()).toEqual([]);
  if (expectNote) expect(untrusted).toContain(`ptc: note: ignored ${path.join(repo.dir, '.ptc/presets/ptc.yml')} (workspace ${repo.dir} is not trusted); using the shipped preset ptc. To use the workspace's: ptc trust ${repo.dir}`);

  trust(repo);
  await attempt(repo);
  expect(repo.markers()).toEqual(MARKERS);

  repo.clear();
  repo.change();
  const changed = await attempt(repo);
  expect(repo.markers()).toEqual([]);
  if (expectNote) expect(changed).toContain(`(workspace ${repo.dir} changed since you trusted it`);
}

describe('a cloned repository runs none of its code until trusted', () => {
  it('ptc tools', async () => {
    await untrustedTrustedChanged((repo) => ptc(['tools'], { cwd: repo.dir }).stderr);
  });

  it('ptc sdk', async () => {
    await untrustedTrustedChanged((repo) => ptc(['sdk', '--cwd', repo.dir], { cwd: base }).stderr);
  });

  it('ptc exec', async () => {
    await untrustedTrustedChanged((repo) => {
      const run = ptc(['exec', '-', '--json'], { cwd: repo.dir, input: 'return 1;' });
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, value: 1 });
      return run.stderr;
    });
  });

  it('ptc presets show ptc', async () => {
    await untrustedTrustedChanged((repo) => {
      const run = ptc(['presets', 'show', 'ptc'], { cwd: repo.dir });
      expect(run.code).toBe(0);
      return run.stderr;
    });
  });

  it('ptc run (a loopback model server) and ptc run --continue', async () => {
    const sessionDir = path.join(base, 'sessions-run');
    await untrustedTrustedChanged(async (repo) => {
      const model = await startScriptedOpenAIServer([reply.text('First.'), reply.text('Again.')]);
      try {
        const flags = ['--json', '--base-url', model.baseUrl, '--model', 'scripted', '--session-dir', sessionDir];
        const first = await ptcAsync(['run', 'Say hi.', ...flags], repo.dir);
        expect(first.code).toBe(0);
        // A resumed session takes its preset from --preset (default ptc), not from its log: the same check.
        const again = await ptcAsync(['run', 'Again.', '--continue', ...flags], repo.dir);
        expect(again.code).toBe(0);
        return first.stderr + again.stderr;
      } finally {
        await model.close();
      }
    });
  });

  it('ptc mcp serve', async () => {
    await untrustedTrustedChanged(async (repo) => {
      // stdin closed at once: the server assembles the preset, then stops.
      const run = await ptcAsync(['mcp', 'serve', '--cwd', repo.dir], base);
      expect(run.stdout).toBe('');
      return run.stderr;
    });
  });

  it('ptc acp: session/new', async () => {
    await untrustedTrustedChanged((repo) => acpSessionNew(repo.dir));
  });

  it('ptc ui: the first message', async () => {
    await untrustedTrustedChanged((repo) => uiFirstMessage(repo.dir));
  });
});

describe('a subagent reaches a preset by name', () => {
  it('task({ preset }) with a workspace-only preset: INVALID_ARGS untrusted, nothing runs; trusted, the child assembles it', async () => {
    const repo = cloneRepo();
    fs.copyFileSync(path.join(repo.dir, '.ptc/presets/ptc.yml'), path.join(repo.dir, '.ptc/presets/repo.yml'));
    const sessionDir = path.join(base, 'sessions-task');
    const delegate = (replies: ReturnType<typeof reply.text>[]) => [
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'delegate', prompt: 'Say hi.', preset: 'repo' } }]),
      ...replies,
    ];
    const run = async (script: ReturnType<typeof reply.text>[]) => {
      const model = await startScriptedOpenAIServer(script);
      try {
        const out = await ptcAsync(['run', 'Delegate.', '--preset', 'standard', '--json', '--base-url', model.baseUrl, '--model', 'scripted', '--session-dir', sessionDir], repo.dir);
        return { ...out, bodies: model.requests.map((r) => r.body) };
      } finally {
        await model.close();
      }
    };
    const untrusted = await run(delegate([reply.text('Could not.')]));
    expect(repo.markers()).toEqual([]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.bodies[1]).toContain('INVALID_ARGS');
    expect(untrusted.bodies[1]).toContain('ptc trust');
    // Control: trusted, the child's harness assembles the workspace preset (the markers appear).
    trust(repo);
    const trusted = await run(delegate([reply.text('Hi from the child.'), reply.text('Done.')]));
    expect(trusted.code).toBe(0);
    expect(repo.markers()).toEqual(MARKERS);
  });
});

describe('what a program writes, and what the user typed', () => {
  it.skipIf(skipWithoutBwrap)('a program (ptc exec) writes .ptc/presets/ptc.yml and a plugin; the next ptc tools runs none of it', () => {
    const dir = path.join(base, 'program-ws');
    const markerDir = path.join(base, 'program-markers');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(markerDir, { recursive: true });
    // The files the program writes: the same hostile preset, written by the sandboxed program itself.
    const staged = path.join(base, 'program-staged');
    writeHostileFiles(staged, markerDir);
    const files = ['ptc.yml', 'plugin.ts', 'server.mjs'].map((name) => ({ path: `.ptc/presets/${name}`, content: fs.readFileSync(path.join(staged, '.ptc/presets', name), 'utf8') }));
    const program = `for (const f of ${JSON.stringify(files)}) { try { await tools.write(f); } catch (e) { console.log('write refused: ' + e.message); } } return 'done';`;
    const exec = ptc(['exec', '-', '--json', '--sandbox', 'required'], { cwd: dir, input: program });
    expect(exec.code, exec.stderr).toBe(0);
    const tools = ptc(['tools'], { cwd: dir });
    expect(fs.readdirSync(markerDir)).toEqual([]);
    expect(tools.code).toBe(0);
    if (fs.existsSync(path.join(dir, '.ptc/presets/ptc.yml'))) {
      expect(tools.stderr).toContain(`ptc: note: ignored ${path.join(dir, '.ptc/presets/ptc.yml')}`);
      // Control: the user trusts what the program wrote; then it runs (no package row in this one).
      expect(ptc(['trust', dir], { cwd: base }).code).toBe(0);
      ptc(['tools'], { cwd: dir });
      expect(fs.readdirSync(markerDir)).toContain('plugin');
    }
  });

  it('a workspace-only preset name is CONFIG naming the file and `ptc trust`; trusted, it runs', () => {
    const repo = cloneRepo();
    fs.copyFileSync(path.join(repo.dir, '.ptc/presets/ptc.yml'), path.join(repo.dir, '.ptc/presets/repo.yml'));
    // `--lang py` reads the preset itself to swap its runtime row: the same check.
    for (const args of [['tools', '--preset', 'repo'], ['exec', '-', '--preset', 'repo'], ['exec', '-', '--lang', 'py', '--preset', 'repo'], ['presets', 'show', 'repo']]) {
      const run = ptc(args, { cwd: repo.dir, input: 'return 1;' });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`ptc: Preset "repo" is ${path.join(repo.dir, '.ptc/presets/repo.yml')}, and workspace ${repo.dir} is not trusted`);
      expect(run.stderr).toContain(`\`ptc trust ${repo.dir}\``);
      expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
    expect(repo.markers()).toEqual([]);
    trust(repo);
    expect(ptc(['tools', '--preset', 'repo'], { cwd: repo.dir }).code).toBe(0);
    expect(repo.markers()).toEqual(MARKERS);
  });

  it('ptc presets list says the workspace preset is not used, and which one is', () => {
    const repo = cloneRepo();
    const listed = ptc(['presets', 'list'], { cwd: repo.dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ptc +workspace, not trusted: not used +a cloned repository/m);
    expect(listed.stdout).toMatch(/^ptc +shipped +The coding tools/m);
    expect(listed.stderr).toContain(`ptc trust ${repo.dir}`);
    trust(repo);
    const after = ptc(['presets', 'list'], { cwd: repo.dir });
    expect(after.stdout).toMatch(/^ptc +shipped, shadowed by workspace/m);
    expect(repo.markers()).toEqual([]);
  });

  it("a $PTC_HOME preset's package row does not resolve from the untrusted workspace", () => {
    const repo = cloneRepo();
    fs.mkdirSync(path.join(home, 'presets'), { recursive: true });
    fs.writeFileSync(path.join(home, 'presets', 'mine.yml'), 'description: My own, with a package row.\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: repo-helper\n');
    const refused = ptc(['tools', '--preset', 'mine'], { cwd: repo.dir });
    expect(refused.code).toBe(2);
    // It resolves from the preset's own directory instead, where it is not installed.
    expect(refused.stderr).toContain(`no package "repo-helper" installed in ${path.join(home, 'presets')} (the untrusted workspace ${repo.dir} is not searched: \`ptc trust ${repo.dir}\`)`);
    expect(repo.markers()).toEqual([]);
    // Control: trusted, the package resolves from the workspace as before.
    trust(repo);
    expect(ptc(['tools', '--preset', 'mine'], { cwd: repo.dir }).code).toBe(0);
    expect(repo.markers()).toEqual(['package']);
    fs.rmSync(path.join(home, 'presets', 'mine.yml'));
  });

  it('an explicit --preset path is the user\'s own choice and loads; ptc trust --revoke forgets', () => {
    const repo = cloneRepo();
    expect(ptc(['tools', '--preset', './.ptc/presets/ptc.yml'], { cwd: repo.dir }).code).toBe(0);
    expect(repo.markers()).toEqual(MARKERS);
    repo.clear();
    trust(repo);
    const store = path.join(home, 'trust.json');
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    expect(ptc(['trust', '--revoke', repo.dir], { cwd: base }).stdout).toContain(`Revoked trust in ${repo.dir}`);
    ptc(['tools'], { cwd: repo.dir });
    expect(repo.markers()).toEqual([]);
  });
});

/** `ptc acp`: initialize and session/new over its stdio, then stdin closes. Returns stderr. */
function acpSessionNew(workspace: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'acp', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'scripted', '--session-dir', path.join(base, 'sessions-acp')], {
      cwd: base,
      env,
    });
    let stdout = '';
    let stderr = '';
    let sentNew = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const send = (id: number, method: string, params: unknown) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const lines = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { id?: number });
      if (lines.some((l) => l.id === 1) && !sentNew) {
        sentNew = true;
        send(2, 'session/new', { cwd: workspace, mcpServers: [] });
      }
      if (lines.some((l) => l.id === 2)) child.stdin.end();
    });
    child.on('error', reject);
    child.on('close', () => resolve(stderr));
    send(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  });
}

/** `ptc ui`: the URL it prints, one POST of a first message, then SIGTERM. Returns stderr. */
async function uiFirstMessage(workspace: string): Promise<string> {
  const model = await startScriptedOpenAIServer([reply.text('Hello.')]);
  const child = spawn(process.execPath, [bin, 'ui', '--cwd', workspace, '--base-url', model.baseUrl, '--model', 'scripted', '--session-dir', path.join(base, 'sessions-ui')], { cwd: base, env });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const found = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/.exec(out);
        if (found) resolve(new URL(found[1]!));
      });
      child.on('close', () => reject(new Error(`ptc ui exited: ${stderr}`)));
    });
    const token = url.searchParams.get('token')!;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url.origin}/api/sessions`, { method: 'POST', headers: { 'x-ptc-token': token, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ text: 'hi' }));
    });
    // 201: the turn's harness assembled (with the shipped preset while untrusted).
    expect(status).toBe(201);
  } finally {
    child.kill('SIGTERM');
    await closed;
    await model.close();
  }
  return stderr;
}
