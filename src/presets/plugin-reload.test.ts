// Hot reload of plugin files (docs/plugin-reload.md) through a real harness: real files on disk, the
// real loader hooks and container. A plugin with a tool, a listener and an interval is edited twice;
// after each reload exactly one version's tool, listener and timer remain. A broken edit keeps the old
// version; a workspace plugin edited after trust, or a file programs can write, is not imported.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../test/helpers/wait-until.js';
import { createHarness, type Harness } from '../harness.js';
import { recordTrust } from '../trust/trust-store.js';
import { collectWorkspaceConfig } from '../trust/workspace-config.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-reload-unit-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let count = 0;

interface Probe {
  ticks: Record<string, number>;
  heard: Record<string, number>;
  markers: string[];
}

/** What every version of the test plugin counts into, shared through globalThis by a per-test key. */
function probe(key: string): Probe {
  const g = globalThis as unknown as Record<string, Probe>;
  g[key] ??= { ticks: {}, heard: {}, markers: [] };
  return g[key]!;
}

/**
 * A TypeScript plugin registering tool `greet` (description and output name the version), a listener
 * of `reload-test/ping` and an interval, all through its context; its version string comes from a
 * local helper module, so editing only the helper is a change too.
 */
function pluginSource(key: string): string {
  return `import { VERSION } from './version.js';
type Probe = { ticks: Record<string, number>; heard: Record<string, number>; markers: string[] };
const probe = (globalThis as unknown as Record<string, Probe>)[${JSON.stringify(key)}]!;
probe.markers.push(VERSION);
export const name = 'greeter';
export function apply(ctx: any): void {
  ctx.tools.register({
    name: 'greet',
    description: 'Greets (version ' + VERSION + ').',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute: async () => ({ greeting: 'hello from ' + VERSION }),
  });
  ctx.on('reload-test/ping', () => { probe.heard[VERSION] = (probe.heard[VERSION] ?? 0) + 1; });
  ctx.effect(() => {
    const timer = setInterval(() => { probe.ticks[VERSION] = (probe.ticks[VERSION] ?? 0) + 1; }, 5);
    return () => clearInterval(timer);
  });
}
`;
}

function versionSource(version: string): string {
  return `export const VERSION: string = ${JSON.stringify(version)};\n`;
}

/** A workspace, and a plugin directory outside it (programs cannot write there). */
function setup(): { workspace: string; dir: string; file: string; key: string; env: Record<string, string> } {
  const id = ++count;
  const workspace = path.join(base, `ws-${id}`);
  const dir = path.join(base, `plugins-${id}`);
  fs.mkdirSync(workspace);
  fs.mkdirSync(dir);
  const key = `__ptcReloadProbe${id}`;
  probe(key);
  fs.writeFileSync(path.join(dir, 'greeter.ts'), pluginSource(key));
  fs.writeFileSync(path.join(dir, 'version.ts'), versionSource('v1'));
  return { workspace, dir, file: path.join(dir, 'greeter.ts'), key, env: { PTC_HOME: path.join(base, `home-${id}`) } };
}

declare module '../context/context.js' {
  interface Events {
    'reload-test/ping'(): void;
  }
}

const ping = (harness: Harness) => harness.ctx.emit('reload-test/ping');

async function greet(harness: Harness): Promise<unknown> {
  return (await harness.tools.execute('greet', {})).value;
}

function describeGreet(harness: Harness): string[] {
  return harness.tools.schemas(harness.ctx).filter((s) => s.name === 'greet').map((s) => s.description);
}

/** The version now applied has ticked `n` more times, and every other version's count stands still. */
async function onlyTicking(p: Probe, version: string, n = 5): Promise<void> {
  const frozen = Object.fromEntries(Object.entries(p.ticks).filter(([v]) => v !== version));
  const from = p.ticks[version] ?? 0;
  await waitUntil(`${version}'s interval ticks ${n} times`, () => (p.ticks[version] ?? 0) >= from + n);
  expect(Object.fromEntries(Object.entries(p.ticks).filter(([v]) => v !== version))).toEqual(frozen);
}

describe('reloadPlugins', () => {
  it('replaces the tool, listener and interval of an edited plugin, twice; nothing of an old version remains', async () => {
    const s = setup();
    const p = probe(s.key);
    const harness = await createHarness({ cwd: s.workspace, preset: 'minimal', plugins: [s.file], env: s.env, watchPlugins: true });
    try {
      expect(await harness.reloadPlugins()).toEqual({ changes: [] });
      expect(describeGreet(harness)).toEqual(['Greets (version v1).']);
      ping(harness);
      expect(p.heard).toEqual({ v1: 1 });
      await onlyTicking(p, 'v1');

      // Edit 1: only the local helper changes.
      fs.writeFileSync(path.join(s.dir, 'version.ts'), versionSource('v2'));
      const first = await harness.reloadPlugins();
      expect(first.changes).toMatchObject([{ file: s.file, status: 'reloaded', plugin: 'greeter' }]);
      expect(describeGreet(harness)).toEqual(['Greets (version v2).']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v2' });
      ping(harness);
      expect(p.heard).toEqual({ v1: 1, v2: 1 });
      await onlyTicking(p, 'v2');

      // Edit 2: the plugin file itself (and its helper).
      fs.writeFileSync(path.join(s.dir, 'version.ts'), versionSource('v3'));
      fs.appendFileSync(s.file, '// edited\n');
      expect((await harness.reloadPlugins()).changes).toMatchObject([{ status: 'reloaded' }]);
      expect(describeGreet(harness)).toEqual(['Greets (version v3).']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v3' });
      ping(harness);
      ping(harness);
      expect(p.heard).toEqual({ v1: 1, v2: 1, v3: 2 });
      await onlyTicking(p, 'v3');
      expect(p.markers).toEqual(['v1', 'v2', 'v3']);
      expect(harness.preset.rows.at(-1)).toMatchObject({ plugin: 'greeter', state: 'active' });

      // Unchanged files: nothing is imported again.
      expect(await harness.reloadPlugins()).toEqual({ changes: [] });
      expect(p.markers).toEqual(['v1', 'v2', 'v3']);
    } finally {
      await harness.dispose();
    }
    // Disposing the harness stops the version that was applied last.
    const after = { ...p.ticks };
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(p.ticks).toEqual(after);
  });

  it('a broken edit (syntax error, throwing apply) keeps the old version and reports CONFIG naming the file and line', async () => {
    const s = setup();
    const p = probe(s.key);
    const harness = await createHarness({ cwd: s.workspace, preset: 'minimal', plugins: [s.file], env: s.env, watchPlugins: true });
    const good = fs.readFileSync(s.file, 'utf8');
    try {
      fs.writeFileSync(s.file, `${good}\nexport const broken = ;\n`);
      const syntax = await harness.reloadPlugins();
      expect(syntax.changes).toHaveLength(1);
      const [kept] = syntax.changes;
      expect(kept).toMatchObject({ status: 'kept', plugin: 'greeter', error: { code: 'CONFIG' } });
      expect(kept!.error!.message).toContain(s.file);
      expect(kept!.error!.message).toMatch(/line \d+|greeter\.ts:\d+/);
      expect(kept!.error!.message).toContain('keeps running');
      expect(describeGreet(harness)).toEqual(['Greets (version v1).']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v1' });
      // Reported once, not every turn.
      expect(await harness.reloadPlugins()).toEqual({ changes: [] });

      // A version whose apply throws after registering its tool: its tool goes, the old one is back.
      fs.writeFileSync(path.join(s.dir, 'version.ts'), versionSource('v2'));
      fs.writeFileSync(s.file, good.replace("ctx.effect(() => {", "throw new Error('apply broke');\n  ctx.effect(() => {"));
      const throwing = await harness.reloadPlugins();
      expect(throwing.changes).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
      const message = throwing.changes[0]!.error!.message;
      expect(message).toContain("apply broke");
      expect(message).toMatch(/greeter\.ts:\d+/);
      expect(describeGreet(harness)).toEqual(['Greets (version v1).']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v1' });
      ping(harness);
      // v1's listener (applied again) hears; v2's is gone with its failed scope.
      expect(p.heard).toEqual({ v1: 1 });
      await onlyTicking(p, 'v1');

      // A fixed edit loads.
      fs.writeFileSync(s.file, `${good}// fixed\n`);
      expect((await harness.reloadPlugins()).changes).toMatchObject([{ status: 'reloaded' }]);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v2' });
    } finally {
      await harness.dispose();
    }
  });

  it('a JavaScript plugin with a syntax error: the report names the file and line Node gives', async () => {
    const s = setup();
    const file = path.join(s.dir, 'plain.mjs');
    const good = "export const name = 'plain';\nexport function apply(ctx) {\n  ctx.tools.register({ name: 'plain', description: 'Plain.', inputSchema: { type: 'object' }, execute: async () => 1 });\n}\n";
    fs.writeFileSync(file, good);
    const harness = await createHarness({ cwd: s.workspace, preset: 'minimal', plugins: [file], env: s.env, watchPlugins: true });
    try {
      fs.writeFileSync(file, `${good}\nexport const broken = ;\n`);
      const [kept] = (await harness.reloadPlugins()).changes;
      expect(kept).toMatchObject({ status: 'kept', error: { code: 'CONFIG' } });
      expect(kept!.error!.message).toContain(`(${file}:6:`);
      expect(harness.tools.get('plain')).toBeDefined();
    } finally {
      await harness.dispose();
    }
  });

  it('a workspace preset plugin edited after trust is not imported until trusted again', async () => {
    const s = setup();
    const p = probe(s.key);
    const presets = path.join(s.workspace, '.ptc', 'presets');
    fs.mkdirSync(presets, { recursive: true });
    fs.copyFileSync(s.file, path.join(presets, 'greeter.ts'));
    fs.copyFileSync(path.join(s.dir, 'version.ts'), path.join(presets, 'version.ts'));
    fs.writeFileSync(path.join(presets, 'repo.yml'), 'description: repo\nplugins:\n  - name: tool-presentation\n    config: { mode: native }\n  - name: ./greeter.ts\n');
    const trust = () => {
      const config = collectWorkspaceConfig(s.workspace, { env: s.env });
      recordTrust(s.env.PTC_HOME!, config.workspace, config.digest);
    };
    trust();
    const harness = await createHarness({ cwd: s.workspace, preset: 'repo', env: s.env, watchPlugins: true });
    try {
      expect(await greet(harness)).toEqual({ greeting: 'hello from v1' });
      fs.writeFileSync(path.join(presets, 'version.ts'), versionSource('v2'));
      const refused = await harness.reloadPlugins();
      expect(refused.changes).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
      expect(refused.changes[0]!.error!.message).toContain('changed since you trusted it');
      expect(refused.changes[0]!.error!.message).toContain(`ptc trust ${s.workspace}`);
      expect(p.markers).toEqual(['v1']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v1' });

      // Trusted again with these files: the next check loads them.
      trust();
      expect((await harness.reloadPlugins()).changes).toMatchObject([{ status: 'reloaded' }]);
      expect(p.markers).toEqual(['v1', 'v2']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v2' });
    } finally {
      await harness.dispose();
    }
  });

  it('an edit of a --plugin file that programs can write (inside the workspace) is not imported', async () => {
    const s = setup();
    const p = probe(s.key);
    const inside = path.join(s.workspace, 'tools');
    fs.mkdirSync(inside);
    fs.copyFileSync(s.file, path.join(inside, 'greeter.ts'));
    fs.copyFileSync(path.join(s.dir, 'version.ts'), path.join(inside, 'version.ts'));
    const harness = await createHarness({ cwd: s.workspace, preset: 'minimal', plugins: [path.join(inside, 'greeter.ts')], env: s.env, watchPlugins: true });
    try {
      fs.writeFileSync(path.join(inside, 'version.ts'), versionSource('v2'));
      const report = await harness.reloadPlugins();
      expect(report.changes).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
      const message = report.changes[0]!.error!.message;
      expect(message).toContain(path.join(inside, 'version.ts'));
      expect(message).toContain('can be written by programs');
      expect(message).toContain('--protect');
      expect(p.markers).toEqual(['v1']);
      expect(await greet(harness)).toEqual({ greeting: 'hello from v1' });
    } finally {
      await harness.dispose();
    }
  });
});
