// The creator preset's tools through the harness's pipeline: harness_inspect (rows, a pending plugin,
// services, scopes, wire tools, runtime), plugin_try (good, syntax error, throwing apply, outside the
// policy; nothing stays registered) and preset_write (valid, invalid, overwrite; then it loads).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { installApprovals, type ApprovalRequest } from '../approvals/approvals.js';
import { createHarness, type Harness } from '../harness.js';
import type { HarnessInspection } from './creator-inspect.js';
import type { PluginTryResult } from './creator-plugin-try.js';
import type { PresetWriteResult } from './creator-preset-write.js';
import { toolPresentationPlugin } from './tool-presentation-plugin.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/plugins');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-creator-'));
const workspace = path.join(root, 'ws');
const env = { PTC_HOME: path.join(root, 'no-home') };
fs.mkdirSync(path.join(workspace, 'tools'), { recursive: true });
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// Self-contained plugin files (no imports), so they load from a temp workspace.
fs.writeFileSync(path.join(workspace, 'tools', 'broken.ts'), 'export const name = "broken";\nexport function apply(ctx: unknown {\n}\n');
fs.writeFileSync(
  path.join(workspace, 'tools', 'throws.mjs'),
  'export const name = "throws";\nexport function apply(ctx) {\n' +
    '  ctx.tools.register({ name: "half_done", description: "never kept", inputSchema: { type: "object" }, execute: () => null });\n' +
    '  throw new Error("the backend is down");\n}\n',
);
fs.writeFileSync(
  path.join(workspace, 'tools', 'echo.ts'),
  'export const name = "echo";\nexport function apply(ctx: any): void {\n' +
    '  ctx.tools.register({ name: "echo", description: "Echoes text.\\nSecond line.", inputSchema: { type: "object", properties: { text: { type: "string" }, times: { type: "integer" } }, required: ["text"] }, execute: (a: { text: string }) => a.text });\n}\n',
);
fs.writeFileSync(path.join(workspace, 'tools', 'notes.txt'), 'not a plugin\n');
fs.writeFileSync(path.join(root, 'outside.mjs'), 'export const name = "outside";\nexport function apply() {}\n');

/** The creator preset; `allowTries`: with a person who allows every call (each plugin_try asks: docs/creator.md). */
async function creator(options: { allowRead?: string[] } = {}, allowTries = false): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'creator', env, ...options });
  if (allowTries) installApprovals(harness.ctx, { policy: 'writes', approver: async () => ({ decision: 'allow' }) });
  return harness;
}

async function call<T>(harness: Harness, name: string, args: unknown): Promise<T> {
  const result = await harness.tools.execute(name, args);
  expect(result.error).toBeUndefined();
  return result.value as T;
}

describe('harness_inspect', () => {
  it('shows the preset rows active, a pending plugin with what it waits for, services, scopes and wire tools', async () => {
    const harness = await creator();
    try {
      // A ptc presentation without a runtime: loaded after assembly, it can only wait.
      harness.ctx.plugin(toolPresentationPlugin({ mode: 'ptc' }), { mode: 'ptc' });
      const seen = await call<HarnessInspection>(harness, 'harness_inspect', {});
      expect(seen.preset.map((r) => `${r.index} ${r.name} ${r.state}`)).toEqual([
        '1 builtin-tools active',
        '2 skills active',
        '3 workflows active',
        '4 creator-tools active',
        '5 tool-presentation active',
        '6 llm active',
        '7 sessions active',
        '8 logger active',
        '9 loop active',
      ]);
      expect(seen.preset[0]!.at).toMatch(/presets\/creator\.yml:3$/);
      expect(seen.plugins).toContainEqual({ name: 'tool-presentation', loadedBy: 'root', state: 'pending', waitsFor: ['ptcRuntime'] });
      // The shipped table's `loop` row provides nothing: the real loop is the agent layer's (src/agent/agent-rows.ts).
      expect(seen.services).toEqual([
        { name: 'tools', provider: 'root' },
        { name: 'harness', provider: 'root' },
        { name: 'rowKinds', provider: 'root' },
        { name: 'workflows', provider: 'workflows', row: { index: 3, name: 'workflows', default: false } },
        { name: 'llm', provider: 'llm', row: { index: 6, name: 'llm', default: false } },
        { name: 'sessions', provider: 'sessions', row: { index: 7, name: 'sessions', default: false } },
        { name: 'logger', provider: 'logger', row: { index: 8, name: 'logger', default: false } },
      ]);
      const rootScope = seen.scopes.find((s) => s.scope === 'root')!;
      expect(rootScope).toMatchObject({ mode: 'native', current: true });
      expect(rootScope.wire).toEqual(rootScope.tools);
      expect(rootScope.tools).toEqual(expect.arrayContaining(['harness_inspect', 'plugin_try', 'preset_write', 'bash', 'read']));
      expect(seen.runtime).toBeNull();
      expect(seen.settings).toMatchObject({ cwd: fs.realpathSync(workspace), sandbox: 'auto', network: false });
    } finally {
      await harness.dispose();
    }
  });

  it('in a ptc preset: run_code on the wire, the runtime descriptor, and the transport plugin the presentation row loaded', async () => {
    const file = path.join(root, 'ptc-creator.yml');
    fs.writeFileSync(
      file,
      'description: read and the creator tools through run_code\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n' +
        '  - name: creator-tools\n    config: { tools: [harness_inspect] }\n  - name: node-runtime\n  - name: tool-presentation\n    config: { mode: ptc }\n',
    );
    const harness = await createHarness({ cwd: workspace, preset: file, env, timeoutMs: 5000 });
    try {
      // In ptc mode the tool is reachable from a program only.
      const run = await call<{ result: HarnessInspection }>(harness, 'run_code', { code: 'return await tools.harness_inspect({});', description: 'inspect' });
      const seen = run.result;
      expect(seen.scopes[0]).toMatchObject({ scope: 'root', mode: 'ptc', tools: ['harness_inspect', 'read'], wire: ['run_code'] });
      expect(seen.runtime).toMatchObject({ language: 'typescript', isolation: 'process', sandboxMode: 'auto', timeout: { defaultMs: 5000 } });
      expect(seen.services.map((s) => `${s.name}:${s.provider}`)).toContain('ptcRuntime:node-runtime');
      expect(seen.plugins.map((p) => `${p.name}<${p.loadedBy} ${p.state}`)).toContain('ptc<tool-presentation active');
    } finally {
      await harness.dispose();
    }
  });
});

describe('plugin_try', () => {
  it('reports the tools of a good plugin, and afterwards they are not registered', async () => {
    const harness = await creator({ allowRead: [fixtures] }, true);
    try {
      const tried = await call<PluginTryResult>(harness, 'plugin_try', { path: 'tools/echo.ts' });
      expect(tried).toMatchObject({ ok: true, plugin: 'echo', tools: [{ name: 'echo', description: 'Echoes text.', arguments: ['text', 'times?'] }], services: [], remaining: [] });
      expect(harness.tools.get('echo')).toBeUndefined();
      // A TypeScript plugin with its own imports and a config, from an allowed read root.
      const weather = await call<PluginTryResult>(harness, 'plugin_try', { path: path.join(fixtures, 'weather.ts'), config: { units: 'imperial' } });
      expect(weather).toMatchObject({ ok: true, plugin: 'weather', tools: [{ name: 'forecast', arguments: ['city'] }] });
      expect(harness.tools.get('forecast')).toBeUndefined();
      const rendered = await harness.tools.execute('plugin_try', { path: 'tools/echo.ts' });
      expect(rendered.content).toContain('- tool echo(text, times?): Echoes text.');
    } finally {
      await harness.dispose();
    }
  });

  it('a bad config, a syntax error and a throwing apply: the reason, and nothing left registered', async () => {
    const harness = await creator({ allowRead: [fixtures] }, true);
    try {
      const config = await call<PluginTryResult>(harness, 'plugin_try', { path: path.join(fixtures, 'weather.ts'), config: { units: 'kelvin' } });
      expect(config).toMatchObject({ ok: false, error: { code: 'CONFIG' } });
      expect(config.error!.message).toContain('Invalid config for plugin "weather"');
      expect(config.error!.message).toContain('units');

      const broken = await call<PluginTryResult>(harness, 'plugin_try', { path: 'tools/broken.ts' });
      expect(broken).toMatchObject({ ok: false, tools: [], error: { code: 'CONFIG' } });
      expect(broken.error!.message).toContain('cannot load plugin file');

      const throws = await call<PluginTryResult>(harness, 'plugin_try', { path: 'tools/throws.mjs' });
      expect(throws).toMatchObject({ ok: false, error: { code: 'CONFIG' } });
      expect(throws.error!.message).toContain('failed: the backend is down');
      expect(harness.tools.get('half_done')).toBeUndefined();
      expect(harness.ctx.inspect().plugins.map((p) => p.handle.name)).not.toContain('plugin-try');
      const rendered = await harness.tools.execute('plugin_try', { path: 'tools/throws.mjs' });
      expect(rendered.content).toContain('did not load (CONFIG)');
      expect(rendered.content).toContain('Nothing was kept.');
    } finally {
      await harness.dispose();
    }
  });

  it('trying the same file again after an edit (of it or of a module it imports) loads the edited version', async () => {
    const harness = await creator({}, true);
    const dir = path.join(workspace, 'tools', 'edited');
    fs.mkdirSync(dir, { recursive: true });
    const plugin = (tool: string) =>
      `import { SUFFIX } from './suffix.js';\nexport const name = 'edited';\nexport function apply(ctx: any) {\n  ctx.tools.register({ name: '${tool}' + SUFFIX, description: 'Edited.', inputSchema: { type: 'object' }, execute: async () => 1 });\n}\n`;
    fs.writeFileSync(path.join(dir, 'plugin.ts'), plugin('first'));
    fs.writeFileSync(path.join(dir, 'suffix.ts'), "export const SUFFIX = '_a';\n");
    try {
      const names = async () => (await call<PluginTryResult>(harness, 'plugin_try', { path: 'tools/edited/plugin.ts' })).tools.map((t) => t.name);
      expect(await names()).toEqual(['first_a']);
      fs.writeFileSync(path.join(dir, 'plugin.ts'), plugin('second'));
      expect(await names()).toEqual(['second_a']);
      fs.writeFileSync(path.join(dir, 'suffix.ts'), "export const SUFFIX = '_b';\n");
      expect(await names()).toEqual(['second_b']);
      expect(harness.tools.get('second_b')).toBeUndefined();
    } finally {
      await harness.dispose();
    }
  });

  it('a file outside the policy is PERMISSION_DENIED and is not loaded', async () => {
    const harness = await creator({}, true);
    try {
      const result = await harness.tools.execute('plugin_try', { path: path.join(root, 'outside.mjs') });
      expect(result).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      const missing = await harness.tools.execute('plugin_try', { path: 'tools/nowhere.ts' });
      expect(missing).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED' } });
      expect(missing.content).toContain('does not exist');
    } finally {
      await harness.dispose();
    }
  });
});

describe('plugin_try asks a person every time', () => {
  const marker = path.join(root, 'tried-marker');
  fs.writeFileSync(path.join(workspace, 'tools', 'marks.mjs'), `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, '');\nexport const name = 'marks';\nexport function apply() {}\n`);

  it('without approvals, or under never, it is PERMISSION_DENIED saying why and what to do; nothing is imported', async () => {
    for (const policy of [undefined, 'never'] as const) {
      const harness = await createHarness({ cwd: workspace, preset: 'creator', env });
      try {
        if (policy) installApprovals(harness.ctx, { policy, approver: async () => ({ decision: 'allow' }) });
        const result = await harness.tools.execute('plugin_try', { path: 'tools/marks.mjs' });
        expect(result).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
        expect(result.content).toContain('a person approves each try');
        expect(result.content).toContain(policy === 'never' ? '--approve never' : 'no one can be asked');
        expect(fs.existsSync(marker)).toBe(false);
      } finally {
        await harness.dispose();
      }
    }
  });

  it('the request shows the file and its content; allow-tool does not cover the next try; deny imports nothing', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'creator', env });
    const asked: ApprovalRequest[] = [];
    // The first answers the policy's question (plugin_try is not concurrency-safe), the others plugin_try's own.
    const answers = [{ decision: 'allow-tool' as const }, { decision: 'allow-tool' as const }, { decision: 'deny' as const, reason: 'not that' }];
    installApprovals(harness.ctx, { policy: 'writes', approver: async (request) => (asked.push(request), answers.shift()!) });
    try {
      const first = await harness.tools.execute('plugin_try', { path: 'tools/echo.ts' });
      expect(first.isError).toBe(false);
      const second = await harness.tools.execute('plugin_try', { path: 'tools/marks.mjs' });
      expect(second).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(second.content).toContain('denied by the user: not that');
      const own = asked.filter((r) => r.why !== undefined);
      expect(own.map((r) => (r.args as { path: string }).path)).toEqual([path.join(fs.realpathSync(workspace), 'tools/echo.ts'), path.join(fs.realpathSync(workspace), 'tools/marks.mjs')]);
      expect((own[1]!.args as { content: string }).content).toContain('fs.writeFileSync(');
      expect(own[1]!.why).toContain('on the host');
      expect(asked).toHaveLength(3);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      await harness.dispose();
    }
  });
});

describe('preset_write', () => {
  const target = path.join(workspace, '.ptc', 'presets', 'readers.yml');
  const readers = {
    name: 'readers',
    description: 'Read-only tools and the echo plugin, natively.',
    plugins: [
      { name: 'builtin-tools', config: { tools: ['read', 'glob'] } },
      { name: '../../tools/echo.ts' },
      { name: 'tool-presentation', config: { mode: 'native' } },
    ],
  };

  it('writes a preset that then loads by name from the workspace; refuses to overwrite unless asked', async () => {
    const harness = await creator();
    try {
      const written = await call<PresetWriteResult>(harness, 'preset_write', readers);
      // The plugin file is not run by the check: its tool shows only once the preset loads.
      expect(written).toEqual({
        name: 'readers',
        file: '.ptc/presets/readers.yml',
        created: true,
        mode: 'native',
        tools: ['glob', 'read'],
        shadows: [],
        unchecked: ['row 2 `../../tools/echo.ts`'],
      });
      const text = fs.readFileSync(target, 'utf8');
      expect(fs.readdirSync(path.dirname(target))).toEqual(['readers.yml']);

      const again = await harness.tools.execute('preset_write', { ...readers, description: 'changed' });
      expect(again).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED' } });
      expect(again.content).toContain('already exists; pass overwrite: true');
      expect(fs.readFileSync(target, 'utf8')).toBe(text);

      const replaced = await call<PresetWriteResult>(harness, 'preset_write', { ...readers, description: 'changed', overwrite: true });
      expect(replaced.created).toBe(false);
      expect(fs.readFileSync(target, 'utf8')).toContain('description: changed');
    } finally {
      await harness.dispose();
    }
    // The library user trusts the workspace explicitly (docs/presets.md, "Trust").
    const loaded = await createHarness({ cwd: workspace, preset: 'readers', env, trustWorkspace: true });
    try {
      expect(loaded.preset).toMatchObject({ name: 'readers', origin: 'workspace', mode: 'native', tools: ['echo', 'glob', 'read'] });
      expect(await loaded.tools.execute('echo', { text: 'hi' })).toMatchObject({ isError: false, value: 'hi' });
    } finally {
      await loaded.dispose();
    }
  });

  it('refuses a preset that cannot assemble with CONFIG and the loader message, writing nothing', async () => {
    const harness = await creator();
    try {
      const cases: [unknown[], string][] = [
        [[{ name: 'builtin-tools', config: { tools: ['read'] } }, { name: 'tool-presentation', config: { mode: 'ptc' } }], 'row 2 `tool-presentation` is unavailable: waits for ptcRuntime; add a `node-runtime` row'],
        [[{ name: 'frobnicate' }], 'row 1 `frobnicate`: unknown plugin'],
        [[{ name: 'builtin-tools', config: { tools: ['teleport'] } }], 'unknown built-in tool "teleport"'],
        [[{ name: '../../tools/notes.txt' }], 'must end with .ts, .mts, .js, .mjs'],
        [[{ name: 'mcp', config: { mcpServers: { 'bad name': { command: 'x' } } } }], 'row 1 `mcp`: mcpServers.bad name: server names use only'],
      ];
      for (const [plugins, fragment] of cases) {
        const result = await harness.tools.execute('preset_write', { name: 'bad', description: 'bad', plugins });
        expect(result).toMatchObject({ isError: true, error: { code: 'CONFIG' } });
        expect(result.content).toContain('The preset was not written: ');
        expect(result.content).toContain('.ptc/presets/bad.yml:');
        expect(result.content).toContain(fragment);
      }
      const badName = await harness.tools.execute('preset_write', { name: '../evil', description: 'x', plugins: [{ name: 'node-runtime' }] });
      expect(badName).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
      const outside = await harness.tools.execute('preset_write', { name: 'outer', description: 'x', plugins: [{ name: path.join(root, 'outside.mjs') }] });
      expect(outside).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(fs.existsSync(path.join(workspace, '.ptc', 'presets', 'bad.yml'))).toBe(false);
      expect(fs.existsSync(path.join(workspace, '.ptc', 'presets', 'outer.yml'))).toBe(false);
      expect(harness.tools.get('half_done')).toBeUndefined();
    } finally {
      await harness.dispose();
    }
  });
});
