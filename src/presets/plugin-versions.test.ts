// Plugin-file versions across per-turn harnesses (ptc ui's way, docs/plugin-reload.md "ptc ui"): real
// files, real harnesses. Each new harness runs the current version of an edited file; a broken edit
// or one programs could write runs the old version, and a failed assembly leaves the old version in use.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness.js';
import { createPluginVersions } from './plugin-versions.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-versions-unit-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const plugin = (version: string, extra = '') =>
  `export const name = 'versioned';\nexport function apply(ctx: any): void {\n  ${extra}ctx.tools.register({ name: 'which', description: 'Version ${version}.', inputSchema: { type: 'object' }, execute: async () => '${version}' });\n}\n`;

async function which(harness: Harness): Promise<unknown> {
  return (await harness.tools.execute('which', {})).value;
}

describe('createPluginVersions', () => {
  it('each harness runs the current version; a broken edit, a throwing apply and a program-writable file run the old one', async () => {
    const workspace = path.join(base, 'ws');
    const dir = path.join(base, 'plugins');
    fs.mkdirSync(workspace);
    fs.mkdirSync(dir);
    const file = path.join(dir, 'versioned.ts');
    fs.writeFileSync(file, plugin('one'));
    const versions = createPluginVersions();
    const turn = async (): Promise<unknown> => {
      const harness = await createHarness({ cwd: workspace, preset: 'minimal', plugins: [file], env: { PTC_HOME: path.join(base, 'home') }, watchPlugins: true, pluginVersions: versions });
      try {
        return await which(harness);
      } finally {
        await harness.dispose();
      }
    };
    expect(await turn()).toBe('one');
    expect(versions.settle(true)).toEqual({ changes: [] });

    fs.writeFileSync(file, plugin('two'));
    expect(await turn()).toBe('two');
    expect(versions.settle(true).changes).toMatchObject([{ file, status: 'reloaded', plugin: 'versioned' }]);
    expect(await turn()).toBe('two');
    expect(versions.settle(true)).toEqual({ changes: [] });

    // A syntax error: the old version runs, reported once.
    fs.writeFileSync(file, `${plugin('three')}export const x = ;\n`);
    expect(await turn()).toBe('two');
    const broken = versions.settle(true).changes;
    expect(broken).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
    expect(broken[0]!.error!.message).toContain(file);
    expect(await turn()).toBe('two');
    expect(versions.settle(true)).toEqual({ changes: [] });

    // An apply that throws: the harness does not assemble; after settle(false) the old version runs.
    fs.writeFileSync(file, plugin('four', "throw new Error('four is broken');\n  "));
    await expect(turn()).rejects.toMatchObject({ code: 'CONFIG' });
    expect(versions.hasPending()).toBe(true);
    const failed = versions.settle(false, new Error('four is broken'));
    expect(failed.changes).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
    expect(failed.changes[0]!.error!.message).toContain('four is broken');
    expect(await turn()).toBe('two');
  });

  it('an edit of a file inside the workspace (programs can write it) is not imported', async () => {
    const workspace = path.join(base, 'ws-inside');
    fs.mkdirSync(workspace);
    const file = path.join(workspace, 'versioned.ts');
    fs.writeFileSync(file, plugin('one'));
    const versions = createPluginVersions();
    const open = () => createHarness({ cwd: workspace, preset: 'minimal', plugins: [file], env: { PTC_HOME: path.join(base, 'home') }, watchPlugins: true, pluginVersions: versions });
    let harness = await open();
    await harness.dispose();
    versions.settle(true);
    fs.writeFileSync(file, plugin('two'));
    harness = await open();
    try {
      expect(await which(harness)).toBe('one');
      const report = versions.settle(true);
      expect(report.changes).toMatchObject([{ status: 'kept', error: { code: 'CONFIG' } }]);
      expect(report.changes[0]!.error!.message).toContain('can be written by programs');
    } finally {
      await harness.dispose();
    }
  });
});
