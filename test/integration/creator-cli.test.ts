// The creator preset through the real `ptc` binary: a program under `--preset creator` writes a
// preset with preset_write, and `ptc exec --preset <name>` then runs against exactly its tools.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
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

    // A preset a program wrote loads by name only once the user trusts the workspace (docs/presets.md, "Trust").
    expect(ptc(['exec', '--preset', 'reader', '-', '--json'], 'return 1;').code).toBe(2);
    expect(ptc(['trust']).code).toBe(0);
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

describe('preset_write then ptc run --preset <name>', () => {
  /** Runs the CLI without blocking this process's event loop (the model server lives here). */
  function ptcAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], {
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, PTC_HOME: path.join(base, 'ptc-home') },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('the agent runs with the written preset: its requests carry exactly that preset\'s tools', async () => {
    const write = WRITE.replace("name: 'reader'", "name: 'glancer'");
    const written = ptc(['exec', '--preset', 'creator', '-', '--json'], write);
    expect(JSON.parse(written.stdout)).toMatchObject({ ok: true, value: { name: 'glancer' } });
    expect(ptc(['trust']).code).toBe(0);
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 'r1', name: 'read', args: { path: 'notes.txt' } }]),
      reply.text('It is sunny.'),
    ]);
    try {
      const sessions = path.join(base, 'sessions');
      const run = await ptcAsync(['run', 'What do the notes say?', '--preset', 'glancer', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('It is sunny.\n');
      const first = server.requests[0]!.json as { tools: { function: { name: string } }[] };
      expect(first.tools.map((t) => t.function.name)).toEqual(['glob', 'read']);
      expect(JSON.stringify(server.requests[1]!.json)).toContain('sunny');
    } finally {
      await server.close();
    }
  });
});
