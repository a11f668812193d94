// The creator preset through the real `ptc` binary: a program under `--preset creator` writes a
// preset with preset_write, and `ptc exec --preset <name>` then runs against exactly its tools.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/main.js');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-creator-cli-'));
const workspace = path.join(base, 'ws');
fs.mkdirSync(workspace);
fs.writeFileSync(path.join(workspace, 'notes.txt'), 'sunny\n');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function ptc(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: workspace,
    encoding: 'utf8',
    input,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, PTC_HOME: path.join(base, 'ptc-home') },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const WRITE = `return await tools.preset_write({
  name: 'reader',
  description: 'Only read and glob, natively.',
  plugins: [{ name: 'builtin-tools', config: { tools: ['read', 'glob'] } }, { name: 'tool-presentation', config: { mode: 'native' } }],
});`;

describe('preset_write then ptc exec --preset <name>', () => {
  it('a program under the creator preset writes the preset; exec with it sees only its tools', () => {
    const written = ptc(['exec', '--preset', 'creator', '-', '--json'], WRITE);
    expect(written.stderr).toBe('');
    expect(JSON.parse(written.stdout)).toMatchObject({ ok: true, value: { name: 'reader', file: '.ptc/presets/reader.yml', created: true, tools: ['glob', 'read'] } });

    const used = ptc(['exec', '--preset', 'reader', '-', '--json'], "const n = await tools.read({ path: 'notes.txt' }); return { text: n.content.trim() };");
    expect(used.code).toBe(0);
    expect(JSON.parse(used.stdout)).toMatchObject({ ok: true, value: { text: 'sunny' } });

    const listed = ptc(['tools', '--preset', 'reader', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('"glob"');
    expect(listed.stdout).not.toContain('"bash"');

    const refused = ptc(['exec', '--preset', 'creator', '-', '--json'], WRITE);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false });
    expect(refused.stdout).toContain('already exists; pass overwrite: true');
  });
});
