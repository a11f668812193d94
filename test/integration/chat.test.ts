// `ptc chat` driven through a real pseudo-terminal (tmux): two turns of one session, an approval
// answered at the keyboard, a Ctrl-C that stops a step, and a second Ctrl-C that exits with 130.
// The built binary, a real model server on loopback; only the model's choices are scripted.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession, listSessionFiles } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('Skipping the ptc chat terminal test: tmux is not installed (apt-get install tmux).');

describe.skipIf(!hasTmux)('ptc chat in a terminal', () => {
  let tmp: string;
  let workspace: string;
  let sessions: string;
  let socket: string;
  let server: ScriptedServer;

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-chat-'));
    workspace = path.join(tmp, 'ws');
    sessions = path.join(tmp, 'sessions');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
    socket = path.join(tmp, 'tmux.sock');
  });
  afterAll(async () => {
    spawnSync('tmux', ['-S', socket, 'kill-server']);
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'chat').stdout;
  const waitFor = async (what: string, pattern: RegExp) => {
    try {
      await waitUntil(`${what} on the terminal`, () => pattern.test(screen()), 30_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the screen:\n${screen()}`);
    }
  };

  it('holds a two-turn conversation with an approval, stops a step on Ctrl-C and exits 130 on the second', async () => {
    const program = "const a = await tools.read({ path: 'a.txt' });\nawait tools.write({ path: 'b.txt', content: 'beta' });\nreturn a.content.trim();";
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'copy a note' } }]),
      reply.text('First answer.'),
      reply.text('Second answer.'),
      reply.toolCalls([{ id: 'p2', name: 'run_code', args: { code: 'await new Promise((r) => setTimeout(r, 60_000));', description: 'wait a minute' } }]),
    ]);
    const command = [
      `cd ${workspace} &&`,
      `HOME=${tmp} PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      `${process.execPath} ${bin} chat --base-url ${server.baseUrl} --model scripted --session-dir ${sessions} --timeout 120000;`,
      'echo "EXIT=$?"; sleep 60',
    ].join(' ');
    expect(tmux('new-session', '-d', '-s', 'chat', '-x', '200', '-y', '60', command).status).toBe(0);

    await waitFor('the prompt', /› $/m);
    tmux('send-keys', '-t', 'chat', 'Copy a to b.', 'Enter');
    await waitFor('the approval question', /Approval needed: write .*"path":"b.txt"/);
    expect(screen()).toMatch(/from the program of run_code p1 \("copy a note"\)/);
    expect(screen()).toMatch(/\| await tools.write/);
    tmux('send-keys', '-t', 'chat', 'y', 'Enter');
    await waitFor('the first answer', /First answer\./);
    expect(screen()).toMatch(/→ run_code "copy a note" \(p1\)/);
    expect(screen()).toMatch(/· read /);
    expect(screen()).toMatch(/✓ run_code \d+ ms, 2 sub-calls: alpha/);
    expect(fs.readFileSync(path.join(workspace, 'b.txt'), 'utf8')).toBe('beta');

    tmux('send-keys', '-t', 'chat', 'And then?', 'Enter');
    await waitFor('the second answer', /Second answer\./);

    tmux('send-keys', '-t', 'chat', 'Wait a minute.', 'Enter');
    await waitFor('the long program', /→ run_code "wait a minute"/);
    tmux('send-keys', '-t', 'chat', 'C-c');
    await waitFor('the stopped step', /\(step stopped\)/);
    tmux('send-keys', '-t', 'chat', 'C-c');
    await waitFor('the exit code', /EXIT=130/);

    // One session, three turns, each request rebuilt from the log before it.
    const files = listSessionFiles(sessions);
    expect(files).toHaveLength(1);
    const { events, warnings } = readSession(files[0]!.file);
    expect(warnings).toEqual([]);
    expect(events.filter((e) => e.type === 'user/message').map((e) => (e as { text: string }).text)).toEqual(['Copy a to b.', 'And then?', 'Wait a minute.']);
    expect(events.filter((e) => e.type === 'session/end').map((e) => (e as { reason: string }).reason)).toEqual(['completed', 'completed', 'aborted']);
    expect(events.filter((e) => e.type === 'tool/approval').map((e) => (e as { stage: string }).stage)).toEqual(['request', 'answer']);
    const third = server.requests[2]!.json as { messages: { role: string }[] };
    expect(third.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  }, 180_000);
});
