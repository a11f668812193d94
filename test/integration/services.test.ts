// The container services a preset row provides (docs/architecture.md, "Services"), through the real
// `ptc` binary: plugin rows that replace the model client (answers from a script, no HTTP), the
// session store (in memory: nothing written to the session directory, a resume through it), the loop
// (wrapped to count steps) and the logger (receives the log lines); `ptc presets show` naming each
// service's row; and the default `llm` row loading no AI SDK module until a model is opened.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentHarness } from '../../src/agent/agent-harness.js';
import { loopOf } from '../../src/agent/loop-service.js';
import type { SessionEvent } from '../../src/session/events.js';
import { runPtc } from '../helpers/run-ptc.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-services-'));
const workspace = path.join(base, 'ws');
const home = path.join(base, 'home');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

// A user's project with ptc-harness installed, so the plugins' `ptc-harness` imports resolve.
fs.mkdirSync(path.join(workspace, 'node_modules'), { recursive: true });
fs.symlinkSync(root, path.join(workspace, 'node_modules', 'ptc-harness'));
fs.mkdirSync(path.join(workspace, 'plugins'));
for (const file of fs.readdirSync(path.join(root, 'test/fixtures/services'))) {
  fs.copyFileSync(path.join(root, 'test/fixtures/services', file), path.join(workspace, 'plugins', file));
}
fs.writeFileSync(path.join(workspace, 'note.txt'), 'hello from the note\n');
fs.mkdirSync(home, { recursive: true });

/** A preset file of the workspace: read presented natively, then `rows` (each `name` or `name: config`). */
function preset(file: string, rows: readonly string[]): string {
  const lines = ['description: services test', 'plugins:', '  - name: builtin-tools', '    config: { tools: [read] }', '  - name: tool-presentation', '    config: { mode: native }'];
  for (const row of rows) lines.push(`  - name: ${row}`);
  fs.writeFileSync(path.join(workspace, file), `${lines.join('\n')}\n`);
  return `./${file}`;
}

// No API key anywhere: a default `llm` row would refuse (CONFIG), so an answer proves the replacement.
const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, PTC_HOME: path.join(home, '.ptc') };

function events(file: string): SessionEvent[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

describe('a plugin row replaces a service', () => {
  it('llm: a scripted client answers a `ptc run` session end to end, logged as usual', async () => {
    const scripted = preset('scripted.yml', ['./plugins/scripted-llm.ts', 'sessions', 'logger', 'loop']);
    const sessionDir = path.join(base, 'sessions-scripted');
    const run = await runPtc(['run', '--preset', scripted, '--session-dir', sessionDir, '--sandbox', 'off', '--json', 'what does the note say?'], { cwd: workspace, env });
    expect(run.stderr).not.toMatch(/API_KEY/);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { text: string; steps: number; sessionFile: string; reason: string };
    expect(summary).toMatchObject({ reason: 'completed', steps: 2 });
    expect(summary.text).toContain('turn 1: the note says');
    expect(summary.text).toContain('hello from the note');
    expect(path.dirname(summary.sessionFile)).toBe(sessionDir);
    const log = events(summary.sessionFile);
    expect(log.find((e) => e.type === 'session/start')).toMatchObject({ model: 'script:default', preset: 'scripted' });
    expect(log.filter((e) => e.type === 'llm/request')).toHaveLength(2);
    expect(log.find((e) => e.type === 'tool/result')).toMatchObject({ name: 'read', isError: false });
  });

  it('sessions: an in-memory store writes nothing to the session directory', async () => {
    const memory = preset('memory.yml', ['./plugins/scripted-llm.ts', './plugins/memory-sessions.ts', 'logger', 'loop']);
    const sessionDir = path.join(base, 'sessions-memory');
    const run = await runPtc(['run', '--preset', memory, '--session-dir', sessionDir, '--sandbox', 'off', '--json', 'read it'], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { text: string; sessionFile: string; sessionId: string };
    expect(summary.sessionFile).toBe(`memory:${summary.sessionId}`);
    expect(summary.text).toContain('hello from the note');
    expect(fs.existsSync(sessionDir)).toBe(false);
  });

  it('sessions: a later turn resumes through the in-memory store (history, continuing steps)', async () => {
    const memory = preset('memory-lib.yml', ['./plugins/scripted-llm.ts', './plugins/memory-sessions.ts', 'logger', 'loop']);
    const sessionDir = path.join(base, 'sessions-memory-lib');
    const harness = await createAgentHarness({ cwd: workspace, preset: path.join(workspace, memory), env, sandbox: 'off' });
    try {
      const store = await harness.ctx.sessions.open(sessionDir);
      const model = await harness.ctx.llm.open({ model: 'm', env });
      const turn = async (task: string, sink: ReturnType<typeof store.start>, history?: readonly SessionEvent[]) =>
        loopOf(harness.ctx).run({ scope: harness.ctx, cwd: workspace, preset: harness.preset.name, model, task, sink, sessionId: sink.sessionId, sessions: store, ...(history ? { history } : {}) });
      const writer = store.start();
      const first = await turn('read the note', writer);
      writer.close();
      expect(first).toMatchObject({ reason: 'completed', steps: 2 });
      const continued = store.continue(writer.sessionId);
      const second = await turn('and again', continued.writer, continued.events);
      continued.writer.close();
      // The client counts the user messages it is sent: the second turn's request carried the first.
      expect(second.text).toContain('turn 2:');
      const { events: logged } = store.read(writer.sessionId);
      expect(logged.filter((e) => e.type === 'user/message').map((e) => (e as { text: string }).text)).toEqual(['read the note', 'and again']);
      expect(logged.some((e) => e.type === 'session/resume')).toBe(true);
      expect(Math.max(...logged.flatMap((e) => (e.type === 'llm/request' ? [e.step] : [])))).toBe(3);
      expect(fs.existsSync(sessionDir)).toBe(false);
    } finally {
      await harness.dispose();
    }
  });

  it('loop: a plugin wrapping the default loop counts the steps of the turn', async () => {
    const counting = preset('counting.yml', ['./plugins/scripted-llm.ts', 'sessions', 'logger', './plugins/counting-loop.ts']);
    const run = await runPtc(['run', '--preset', counting, '--session-dir', path.join(base, 'sessions-counting'), '--sandbox', 'off', '--json', 'read it'], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ steps: 2, reason: 'completed' });
    expect(run.stderr).toContain('counting-loop: 2 steps');
  });

  it('logger: a replacement receives the log lines (a broken skill), none reach stderr', async () => {
    const skills = path.join(base, 'skills');
    fs.mkdirSync(path.join(skills, 'broken'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'broken', 'SKILL.md'), 'no front matter here\n');
    const logged = preset('logged.yml', ['./plugins/file-logger.ts', `skills\n    config: { dirs: [${JSON.stringify(skills)}] }`]);
    const logFile = path.join(base, 'log.txt');
    const run = await runPtc(['presets', 'show', logged], { cwd: workspace, env: { ...env, PTC_TEST_LOG: logFile } });
    expect(run.code).toBe(0);
    expect(fs.readFileSync(logFile, 'utf8')).toMatch(/^warn: .*SKILL\.md.*---/m);
    expect(run.stderr).not.toContain('ptc: warning:');
    expect(run.stdout).toMatch(/^ {2}logger +row 3 `\.\/plugins\/file-logger\.ts` \(plugin file-logger\)$/m);
  });
});

describe('ptc presets show lists each service and the row that provides it', () => {
  it('the shipped ptc preset names its service rows; the harness provides its own', async () => {
    const run = await runPtc(['presets', 'show', 'ptc'], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const services = run.stdout.slice(run.stdout.indexOf('services:'));
    const expected: readonly (readonly [string, string])[] = [
      ['tools', 'the harness'],
      ['ptcRuntime', 'row 4 `node-runtime`'],
      ['llm', 'row 6 `llm`'],
      ['sessions', 'row 7 `sessions`'],
      ['logger', 'row 8 `logger`'],
      ['loop', 'row 9 `loop`'],
    ];
    for (const [service, where] of expected) {
      expect(services).toMatch(new RegExp(`^ {2}${service} +${where.replace(/[`()]/g, '\\$&')}$`, 'm'));
    }
  });

  it('a preset that names no service rows gets the default rows, marked as such', async () => {
    const bare = preset('bare.yml', []);
    const run = await runPtc(['presets', 'show', bare, '--json'], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout) as { rows: { name: string }[]; services: { name: string; row?: { index: number; name: string; default: boolean } }[] };
    expect(shown.rows.map((r) => r.name)).toEqual(['builtin-tools', 'tool-presentation']);
    const byName = new Map(shown.services.map((s) => [s.name, s.row]));
    expect(byName.get('logger')).toEqual({ index: 3, name: 'logger', default: true });
    expect(byName.get('llm')).toEqual({ index: 4, name: 'llm', default: true });
    expect(byName.get('sessions')).toEqual({ index: 5, name: 'sessions', default: true });
    expect(byName.get('loop')).toEqual({ index: 6, name: 'loop', default: true });
  });
});

describe('the default llm and sessions rows are light', () => {
  it('assembling the ptc preset (ptc presets show) loads no module of the AI SDK, nor the session files\' code', async () => {
    const aux = path.join(base, 'count');
    fs.mkdirSync(aux, { recursive: true });
    const list = path.join(aux, 'modules.txt');
    const hooks = path.join(aux, 'hooks.mjs');
    fs.writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, new URL(url).pathname + '\\n');\n  return next(url, context);\n}\n`);
    fs.writeFileSync(path.join(aux, 'count.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    fs.writeFileSync(list, '');
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', path.join(aux, 'count.mjs'), path.join(root, 'dist/cli/ptc.cjs'), 'presets', 'show', 'ptc'], { cwd: workspace, env, encoding: 'utf8' });
    expect(run.status).toBe(0);
    const loaded = fs.readFileSync(list, 'utf8').split('\n').filter((line) => line !== '');
    // The count is real: the harness's own modules are in it.
    expect(loaded.some((file) => file.endsWith('dist/llm/llm-plugin.js'))).toBe(true);
    expect(loaded.some((file) => file.endsWith('dist/session/sessions-plugin.js'))).toBe(true);
    const heavy = (file: string) => /node_modules\/(ai|@ai-sdk\/[^/]+)\//.test(file) || file.endsWith('dist/llm/ai-sdk-client.js') || file.endsWith('dist/session/jsonl-store.js');
    expect(loaded.filter(heavy)).toEqual([]);
  });
});
