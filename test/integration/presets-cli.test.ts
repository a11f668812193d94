// Presets and plugins through the real `ptc` binary (dist/, plain node): a preset file with a
// TypeScript plugin used from a program and listed natively, --plugin, presets list/show, exec over
// a native preset, and every preset error as exit 2 with its message and no stack trace.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-presets-cli-'));
const workspace = path.join(base, 'ws');
const home = path.join(base, 'ptc-home');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

// The workspace as a user's project with ptc-harness installed: the plugin's `ptc-harness` and
// `zod` imports resolve from its own node_modules.
fs.mkdirSync(path.join(workspace, 'node_modules'), { recursive: true });
fs.symlinkSync(root, path.join(workspace, 'node_modules', 'ptc-harness'));
fs.symlinkSync(path.join(root, 'node_modules', 'zod'), path.join(workspace, 'node_modules', 'zod'));
fs.mkdirSync(path.join(workspace, 'tools'));
for (const file of ['weather.ts', 'units.ts', 'throws-after-register.ts']) {
  fs.copyFileSync(path.join(root, 'test/fixtures/plugins', file), path.join(workspace, 'tools', file));
}
fs.writeFileSync(
  path.join(workspace, 'my.yml'),
  [
    'description: read and the weather, through run_code',
    'plugins:',
    '  - name: builtin-tools',
    '    config: { tools: [read] }',
    '  - name: node-runtime',
    '  - name: tool-presentation',
    '    config: { mode: ptc }',
    '  - name: ./tools/weather.ts',
    '    config: { units: imperial }',
    '',
  ].join('\n'),
);
fs.writeFileSync(path.join(workspace, 'notes.txt'), 'sunny\n');

function ptc(args: string[], options: { input?: string; cwd?: string } = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? workspace,
    encoding: 'utf8',
    input: options.input,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, PTC_HOME: home },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

const FORECAST = "const f = await tools.forecast({ city: 'Oslo' }); const n = await tools.read({ path: 'notes.txt' }); return { f, n: n.content.trim() };";

describe('a preset file with a TypeScript plugin', () => {
  it('ptc exec runs a program that calls the plugin tool', () => {
    const { code, stdout, stderr } = ptc(['exec', '-', '--preset', './my.yml', '--json'], { input: FORECAST });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { ok: boolean; value: unknown; dispatches: { tool: string }[] };
    expect(result).toMatchObject({ ok: true, value: { f: { city: 'Oslo', temperature: '70 °F' } } });
    expect((result.value as { n: string }).n).toContain('sunny');
    expect(result.dispatches.map((d) => d.tool)).toEqual(['forecast', 'read']);
  });

  it('ptc tools lists it natively with its schema', () => {
    const { code, stdout, stderr } = ptc(['tools', '--preset', './my.yml', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { name: string; inputSchema: unknown; executionMode: string }[];
    expect(tools.map((t) => t.name)).toEqual(['forecast', 'read']);
    expect(tools[0]).toMatchObject({ executionMode: 'parallel', inputSchema: { required: ['city'] } });
  });

  it('--plugin appends a row to the default ptc preset (relative to the command cwd)', () => {
    const { code, stdout, stderr } = ptc(['exec', '-', '--plugin', 'tools/weather.ts', '--json'], { input: FORECAST, cwd: workspace });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, value: { f: { temperature: '21 °C' } } });
    const listed = ptc(['tools', '--plugin', './tools/weather.ts', '--json']);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)).toEqual(['bash', 'edit', 'forecast', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'workflow_save', 'write']);
  });
});

describe('ptc exec over any preset', () => {
  it('--preset standard runs the program against its tools (a runtime is added for exec)', () => {
    const { code, stdout, stderr } = ptc(['exec', '-', '--preset', 'standard', '--json'], { input: "return (await tools.read({ path: 'notes.txt' })).content;" });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, dispatches: [{ tool: 'read', isError: false }] });
  });
});

describe('ptc presets', () => {
  fs.mkdirSync(path.join(workspace, '.ptc', 'presets'), { recursive: true });
  fs.mkdirSync(path.join(home, 'presets'), { recursive: true });
  // Row paths are relative to the preset file.
  const copied = fs.readFileSync(path.join(workspace, 'my.yml'), 'utf8').replace('./tools/weather.ts', '../../tools/weather.ts');
  fs.writeFileSync(path.join(workspace, '.ptc', 'presets', 'weather.yml'), copied);
  fs.writeFileSync(path.join(home, 'presets', 'reader.yml'), 'description: Only read, natively.\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n');
  fs.writeFileSync(path.join(home, 'presets', 'standard.yml'), 'description: My standard.\nplugins:\n  - name: builtin-tools\n    config: { tools: [read, grep] }\n');

  it('list: name, where it comes from, description; shadowed presets say by what', () => {
    // A workspace preset is used by name only once the workspace is trusted (docs/presets.md, "Trust").
    const untrusted = ptc(['presets', 'list']);
    expect(untrusted.stdout).toMatch(/^weather +workspace, not trusted: not used +read and the weather/m);
    expect(untrusted.stderr).toContain('ptc trust');
    expect(ptc(['trust']).code).toBe(0);
    const { code, stdout } = ptc(['presets', 'list']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(lines).toEqual([
      ['weather', 'workspace', 'read and the weather, through run_code'],
      ['reader', 'PTC_HOME', 'Only read, natively.'],
      ['standard', 'PTC_HOME', 'My standard.'],
      ['creator', 'shipped', expect.stringContaining('preset_write')],
      ['minimal', 'shipped', expect.stringContaining('persistent shell')],
      ['ptc-python', 'shipped', expect.stringContaining('Python runtime')],
      ['ptc', 'shipped', expect.stringContaining('run_code')],
      ['standard', 'shipped, shadowed by PTC_HOME', expect.stringContaining('natively')],
    ]);
  });

  it('show: the rows, the tools and the presentation', () => {
    const { code, stdout } = ptc(['presets', 'show', 'weather']);
    expect(code).toBe(0);
    expect(stdout).toContain(`preset weather (workspace: ${path.join(fs.realpathSync(workspace), '.ptc/presets/weather.yml')})`);
    expect(stdout).toMatch(/ {2}4\. \.\.\/\.\.\/tools\/weather\.ts \(plugin weather\) \{"units":"imperial"\} {2}\[active\]/);
    expect(stdout).toContain('presentation: ptc');
    expect(stdout).toContain('tools: forecast, read');
  });

  it('a named preset from PTC_HOME shadows the shipped one in ptc tools', () => {
    const { code, stdout } = ptc(['tools', '--preset', 'standard', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { name: string }[]).map((t) => t.name)).toEqual(['grep', 'read']);
  });
});

describe('preset errors exit 2 with the row, file:line and the fix, never a stack trace', () => {
  const broken = (name: string, lines: string[]) => {
    fs.writeFileSync(path.join(workspace, name), ['description: broken', 'plugins:', ...lines, ''].join('\n'));
    return `./${name}`;
  };
  it.each([
    ['an unknown row', broken('unknown.yml', ['  - name: builtin-tools', '    config: { tools: [read] }', '  - name: Teleporter']), 'unknown.yml:5: row 2 `Teleporter`: unknown plugin'],
    ['a bad config', broken('bad.yml', ['  - name: tool-presentation', '    config: { mode: 3 }']), 'bad.yml:3: row 1 `tool-presentation`: Invalid config'],
    ['a throwing apply', broken('throws.yml', ['  - name: ./tools/throws-after-register.ts']), 'throws.yml:3: row 1 `./tools/throws-after-register.ts` failed: the weather service is down'],
    ['a pending row', broken('pending.yml', ['  - name: builtin-tools', '    config: { tools: [read] }', '  - name: tool-presentation', '    config: { mode: ptc }']), 'pending.yml:5: row 2 `tool-presentation` is unavailable: waits for ptcRuntime; add a `node-runtime` row'],
    ['a YAML syntax error', broken('syntax.yml', ['  - name: [builtin-tools']), 'syntax.yml:4: YAML syntax error'],
    ['an unknown tool in builtin-tools', broken('tool.yml', ['  - name: builtin-tools', '    config: { tools: [read, teleport] }']), 'unknown built-in tool "teleport"; known: bash'],
    ['a missing --plugin file', '--plugin', '--plugin: row 10 `./nope.ts`: plugin file'],
    ['an unknown preset name', 'turbo', 'Unknown preset "turbo"; choose one of: weather, reader, standard, creator, minimal, ptc'],
  ])('%s', (_label, preset, message) => {
    const args = preset === '--plugin' ? ['tools', '--plugin', './nope.ts'] : ['tools', '--preset', preset];
    const { code, stdout, stderr } = ptc(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expectNoStack(stderr);
  });
});
