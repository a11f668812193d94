// Presets in process: the shipped ones assembled and pinned, resolution order, plugin files loaded
// through Node's own loader with the TypeScript hooks, and every assembly error naming its row.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { createHarness } from '../harness.js';
import { listPresets, resolvePreset, SHIPPED_PRESETS_DIR } from './resolve-preset.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/plugins');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-presets-'));
const workspace = path.join(root, 'ws');
fs.mkdirSync(workspace);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// Not a fixture file: the repo's typecheck would refuse it.
fs.writeFileSync(path.join(root, 'syntax-error.ts'), 'export const name = "broken";\nexport function apply(ctx: unknown {\n}\n');

function writePreset(name: string, text: string): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, text);
  return file;
}

async function configError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HarnessError);
  expect((error as HarnessError).code).toBe('CONFIG');
  return (error as HarnessError).message;
}

describe('shipped presets', () => {
  it('each assembles with its exact rows, tools and presentation (pinned)', async () => {
    const shipped = listPresets({ workspace, env: { PTC_HOME: path.join(root, 'no-home') } }).filter((p) => p.origin === 'shipped');
    expect(shipped.map((p) => p.name).sort()).toEqual(['creator', 'minimal', 'ptc', 'ptc-python', 'standard']);
    const pinned: Record<string, unknown> = {};
    for (const { name } of shipped) {
      const harness = await createHarness({ cwd: workspace, preset: name, env: { PTC_HOME: path.join(root, 'no-home') } });
      try {
        const { description, mode, tools, rows } = harness.preset;
        const wire = harness.tools.wireTools(harness.ctx).map((t) => t.name);
        pinned[name] = { description, mode, tools, wire, rows: rows.map((r) => ({ name: r.name, config: r.config ?? null, state: r.state })) };
      } finally {
        await harness.dispose();
      }
    }
    await expect(`${JSON.stringify(pinned, null, 2)}\n`).toMatchFileSnapshot('../../test/snapshots/presets.shipped.json');
    expect(pinned['ptc']).toMatchObject({ mode: 'ptc', wire: ['run_code'] });
    expect(pinned['standard']).toMatchObject({ mode: 'native', wire: ['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'web_search', 'write'] });
    expect(pinned['minimal']).toMatchObject({ mode: 'native', wire: ['bash', 'str_replace_editor'] });
    expect(pinned['creator']).toMatchObject({
      mode: 'native',
      wire: ['bash', 'edit', 'glob', 'grep', 'harness_inspect', 'plugin_try', 'preset_write', 'read', 'skill', 'task', 'todo', 'web_fetch', 'web_search', 'workflow_save', 'write'],
    });
  });
});

describe('resolution: path, then workspace .ptc/presets, then $PTC_HOME/presets, then shipped', () => {
  const resolving = path.join(root, 'resolving');
  const home = path.join(root, 'ptc-home');
  const preset = (description: string) => `description: ${description}\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n`;
  fs.mkdirSync(path.join(resolving, '.ptc', 'presets'), { recursive: true });
  fs.mkdirSync(path.join(home, 'presets'), { recursive: true });
  fs.writeFileSync(path.join(resolving, '.ptc', 'presets', 'standard.yml'), preset('workspace standard'));
  fs.writeFileSync(path.join(resolving, '.ptc', 'presets', 'mine.yml'), preset('workspace mine'));
  fs.writeFileSync(path.join(home, 'presets', 'mine.yml'), preset('home mine'));
  fs.writeFileSync(path.join(home, 'presets', 'homely.yml'), preset('home only'));
  const search = { workspace: resolving, cwd: root, env: { PTC_HOME: home } };

  it('finds each name where it is first', () => {
    expect(resolvePreset('mine', search)).toMatchObject({ origin: 'workspace', file: path.join(resolving, '.ptc/presets/mine.yml') });
    expect(resolvePreset('homely', search)).toMatchObject({ origin: 'PTC_HOME' });
    expect(resolvePreset('standard', search)).toMatchObject({ origin: 'workspace' });
    expect(resolvePreset('ptc', search)).toMatchObject({ origin: 'shipped', file: path.join(SHIPPED_PRESETS_DIR, 'ptc.yml') });
    expect(resolvePreset('./ptc-home/presets/mine.yml', search)).toMatchObject({ origin: 'path', name: 'mine' });
  });

  it('PTC_HOME defaults to ~/.ptc', () => {
    const user = path.join(root, 'user');
    fs.mkdirSync(path.join(user, '.ptc', 'presets'), { recursive: true });
    fs.writeFileSync(path.join(user, '.ptc', 'presets', 'cosy.yml'), preset('in ~/.ptc'));
    expect(resolvePreset('cosy', { workspace: resolving, env: {}, homedir: user })).toMatchObject({ origin: 'PTC_HOME' });
  });

  it('lists every preset, the shadowed ones marked', () => {
    const listed = listPresets(search).map((p) => `${p.name}:${p.origin}${p.shadowed ? ':shadowed' : ''}`);
    expect(listed).toEqual(['mine:workspace', 'standard:workspace', 'homely:PTC_HOME', 'mine:PTC_HOME:shadowed', 'creator:shipped', 'minimal:shipped', 'ptc-python:shipped', 'ptc:shipped', 'standard:shipped:shadowed']);
  });

  it('an unknown name is CONFIG listing what exists', async () => {
    const message = await configError(Promise.resolve().then(() => resolvePreset('turbo', search)));
    expect(message).toContain('Unknown preset "turbo"; choose one of: mine, standard, homely, creator, minimal, ptc-python, ptc');
  });

  it('an unknown name close to a known one says which was meant', async () => {
    const message = await configError(Promise.resolve().then(() => resolvePreset('standrad', search)));
    expect(message).toContain('Unknown preset "standrad"');
    expect(message).toContain('Did you mean "standard"?');
    expect(await configError(Promise.resolve().then(() => resolvePreset('turbo', search)))).not.toContain('Did you mean');
  });
});

describe('plugin rows', () => {
  const env = { PTC_HOME: path.join(root, 'no-home') };
  const weather = path.join(fixtures, 'weather.ts');

  it('a TypeScript plugin file (relative to the preset) registers its tool; its imports resolve from its location', async () => {
    const rel = path.relative(root, weather);
    const file = writePreset(
      'weather.yml',
      `description: read plus the weather\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: tool-presentation\n    config: { mode: native }\n  - name: ${rel}\n    config: { units: imperial }\n`,
    );
    const harness = await createHarness({ cwd: workspace, preset: file, env });
    try {
      expect(harness.preset).toMatchObject({ name: 'weather', origin: 'path', mode: 'native', tools: ['forecast', 'read'] });
      expect(harness.preset.rows.map((r) => `${r.index} ${r.plugin} ${r.state}`)).toEqual(['1 builtin-tools active', '2 tool-presentation active', '3 weather active']);
      const result = await harness.tools.execute('forecast', { city: 'Oslo' });
      expect(result).toMatchObject({ isError: false, value: { city: 'Oslo', temperature: '70 °F' } });
    } finally {
      await harness.dispose();
    }
  });

  it('extra rows (--plugin) are appended to the preset; the plugin config defaults apply', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'ptc', env, plugins: [{ name: weather, at: '--plugin' }] });
    try {
      expect(harness.preset.tools).toEqual(['bash', 'edit', 'forecast', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'workflow_save', 'write']);
      // After the ptc preset's nine rows (five of tools and presentation, four of services).
      expect(harness.preset.rows.at(-1)).toMatchObject({ index: 10, plugin: 'weather', at: '--plugin' });
      const scope = await harness.ptcScope();
      const run = await harness.tools.execute('run_code', { code: "return await tools.forecast({ city: 'Rome' });", description: 't' }, { scope });
      expect(run.isError).toBe(false);
      expect(run.content).toContain('21 °C');
    } finally {
      await harness.dispose();
    }
  });
});

describe('every preset error is CONFIG naming the row and file:line', () => {
  const env = { PTC_HOME: path.join(root, 'no-home') };
  const cases: [string, string, string[]][] = [
    ['an unknown row', 'plugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: Frobnicate\n', [':5: row 2 `Frobnicate`: unknown plugin', 'builtin-tools, node-runtime, tool-presentation']],
    ['an unknown package row', 'plugins:\n  - name: frobnicate\n', [':3: row 1 `frobnicate`: unknown plugin: no shipped plugin of that name and no package "frobnicate"']],
    ['a bad config', 'plugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: tool-presentation\n    config: { mode: sideways }\n', [':5: row 2 `tool-presentation`: Invalid config for plugin "tool-presentation"', 'mode']],
    ['an unknown tool in builtin-tools', 'plugins:\n  - name: builtin-tools\n    config: { tools: [read, teleport] }\n', [':3: row 1 `builtin-tools`', 'unknown built-in tool "teleport"; known: bash, ', 'read']],
    ['a pending row', 'plugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: tool-presentation\n    config: { mode: ptc }\n', [':5: row 2 `tool-presentation` is unavailable: waits for ptcRuntime; add a `node-runtime` row.']],
    ['a throwing apply', `plugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: ${path.join(fixtures, 'throws-after-register.ts')}\n`, [':5: row 2 `', 'failed: the weather service is down']],
    ['a module with a syntax error', `plugins:\n  - name: ./syntax-error.ts\n`, [':3: row 1 `', 'cannot load plugin file', 'syntax-error.ts']],
    ['a module without named exports', `plugins:\n  - name: ${path.join(fixtures, 'no-apply.mjs')}\n`, ['must export `export const name', 'a default export is not read']],
    ['a missing plugin file', 'plugins:\n  - name: ./nowhere.ts\n', [':3: row 1 `./nowhere.ts`: plugin file', 'nowhere.ts does not exist']],
    ['a YAML syntax error', 'plugins:\n  - name: builtin-tools\n    config: { tools: [read\n', [':5: YAML syntax error: bad indentation, or a flow collection']],
    ['a preset without plugins', 'plugins: []\n', [':2: plugins: list at least one plugin row']],
    ['an unknown pool option of a runtime row', 'plugins:\n  - name: node-runtime\n    config: { pool: { sizes: 3 } }\n', [':3: row 1 `node-runtime`: Invalid config for plugin "node-runtime"', 'sizes']],
    ['a misspelled row key', 'plugins:\n  - name: builtin-tools\n    confg: { tools: [read] }\n', [':3: row 1 "builtin-tools": Unrecognized key']],
  ];
  it.each(cases)('%s', async (label, body, fragments) => {
    const file = writePreset(`${label.replace(/\W+/g, '-')}.yml`, `description: ${label}\n${body}`);
    const message = await configError(createHarness({ cwd: workspace, preset: file, env }));
    expect(message.startsWith(file)).toBe(true);
    for (const fragment of fragments) expect(message).toContain(fragment);
    expect(message).not.toMatch(/^\s+at /m);
  });

  it('both runtime rows take the shared process-runtime fields, pool.maxSize among them', async () => {
    for (const row of ['node-runtime', 'python-runtime']) {
      const file = writePreset(`${row}-config.yml`, `description: r\nplugins:\n  - name: ${row}\n    config: { pool: { size: 1, maxSize: 3, idleMs: 1000 }, execution: in-memory, memoryIdleMs: 5000, processes: false }\n`);
      const harness = await createHarness({ cwd: workspace, preset: file, env });
      await harness.dispose();
      // The fields reach the runtime, which validates them: a ceiling of 0 is its CONFIG error.
      const bad = writePreset(`${row}-bad.yml`, `description: r\nplugins:\n  - name: ${row}\n    config: { pool: { maxSize: 0 } }\n`);
      expect(await configError(createHarness({ cwd: workspace, preset: bad, env }))).toContain('pool.maxSize must be an integer >= 1');
    }
  });

  it('after a throwing plugin row, nothing it registered is left: the next harness registers the same tools', async () => {
    const file = writePreset('throwing.yml', `description: t\nplugins:\n  - name: ${path.join(fixtures, 'throws-after-register.ts')}\n`);
    await configError(createHarness({ cwd: workspace, preset: file, env }));
    const harness = await createHarness({ cwd: workspace, preset: 'standard', env });
    await harness.dispose();
  });
});
