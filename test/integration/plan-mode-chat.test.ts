// Plan mode through `ptc chat` on a real pseudo-terminal (tmux), as a person uses it (docs/plan-mode.md):
// --plan starts it, the model proposes a plan, the person approves it at the prompt (the steps become
// the todo list shown in the chat, plan mode ends and the work starts) or sends it back with a comment
// (the model reads the comment, plan mode stays), /plan toggles it, and a resumed chat is in the mode
// its log ended in. The built binary, a real model server on loopback; only the model's choices are scripted.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { chatTerminals } from '../helpers/chat-terminal.js';
import { hasTmux } from '../helpers/tmux-terminal.js';

if (!hasTmux) console.warn('Skipping the plan-mode chat tests: tmux is not installed (apt-get install tmux).');

type Sent = { tools?: { function: { name: string } }[]; messages: { role: string; content: unknown }[] };
const toolsOf = (server: ScriptedServer, i: number): string[] => ((server.requests[i]!.json as Sent).tools ?? []).map((t) => t.function.name);
const messagesOf = (server: ScriptedServer, i: number): string => JSON.stringify((server.requests[i]!.json as Sent).messages);

describe.skipIf(!hasTmux)('plan mode in ptc chat on a terminal', () => {
  const terminal = chatTerminals('ptc-plan-chat', (workspace) => fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n'));
  const startChat = (script: ScriptedReply[], args: string, name: string) =>
    terminal.start(script, { args: ['--preset', 'standard', '--approve', 'never', ...args.split(' ').filter(Boolean)], env: { NO_COLOR: '1' }, name });

  it('an approved plan becomes the todo list, plan mode ends and the work starts; the log has it all', async () => {
    const chat = await startChat(
      [
        reply.toolCall('plan_propose', { markdown: '## Plan\nWrite the notes file.', steps: ['Write notes.txt', 'Report back'] }, 'pp1'),
        reply.toolCall('write', { path: 'notes.txt', content: 'notes\n' }, 'w1'),
        reply.text('All done.'),
      ],
      '--plan',
      'approve',
    );
    await chat.waitFor('the plan-mode banner', /Plan mode is on: no writes/);
    chat.line('Add a notes file.');
    await chat.waitFor('the proposed plan', /── proposed plan ──/);
    expect(chat.screen()).toMatch(/Write the notes file\./);
    expect(chat.screen()).toMatch(/ {2}1\. Write notes\.txt\n {2}2\. Report back/);
    await chat.waitFor('the review question', /\[y\] approve and start/);
    chat.line('y');
    await chat.waitFor('the approval note', /plan approved: plan mode is off/);
    await chat.waitFor('the todo list', /Plan: 0 of 2 done\n\s+\[ \] Write notes\.txt\n\s+\[ \] Report back/);
    await chat.waitFor('the answer', /All done\./);
    expect(fs.readFileSync(path.join(terminal.workspace, 'notes.txt'), 'utf8')).toBe('notes\n');

    // The first request planned (no write tools, plan_propose offered); the next one works.
    expect(toolsOf(terminal.server!, 0)).toContain('plan_propose');
    expect(toolsOf(terminal.server!, 0)).not.toContain('write');
    expect(toolsOf(terminal.server!, 0)).not.toContain('edit');
    expect(toolsOf(terminal.server!, 1)).toContain('write');
    expect(toolsOf(terminal.server!, 1)).not.toContain('plan_propose');
    expect(messagesOf(terminal.server!, 1)).toMatch(/approved the plan/);

    chat.line('/exit');
    await chat.waitFor('the exit code', /EXIT=0/);
    const [file] = listSessionFiles(terminal.sessions);
    const events = readSession(file!.file).events;
    const planned = events.filter((e) => e.type === 'plan/mode' || e.type === 'plan/review');
    expect(planned).toMatchObject([
      { type: 'plan/mode', active: true, by: 'flag' },
      { type: 'plan/review', id: 'pp1', decision: 'approved', steps: ['Write notes.txt', 'Report back'] },
      { type: 'plan/mode', active: false, by: 'approval' },
    ]);
  }, 120_000);

  it('a plan sent back with a comment goes back to the model in plan mode; a resumed chat is still planning; /plan turns it off', async () => {
    const chat = await startChat(
      [
        reply.toolCall('plan_propose', { markdown: 'Rewrite everything.', steps: ['Rewrite a.txt'] }, 'pp1'),
        reply.text('I will revise the plan.'),
        reply.text('Still planning.'),
        reply.text('Working now.'),
      ],
      '--plan',
      'sendback',
    );
    chat.line('Improve a.txt.');
    await chat.waitFor('the review question', /\[y\] approve and start/);
    chat.line('keep the first line as it is');
    await chat.waitFor('the answer', /I will revise the plan\./);
    expect(messagesOf(terminal.server!, 1)).toContain('keep the first line as it is');
    expect(messagesOf(terminal.server!, 1)).toMatch(/Plan mode stays on/);
    expect(toolsOf(terminal.server!, 1)).not.toContain('write');
    chat.line('/exit');
    await chat.waitFor('the exit code', /EXIT=0/);

    // A new process resuming the session, without --plan: the log says plan mode is on.
    const resumed = await startChat([], '--continue', 'resumed');
    await resumed.waitFor('the plan-mode banner', /Plan mode is on: no writes/);
    resumed.line('Go on.');
    await resumed.waitFor('the answer', /Still planning\./);
    expect(toolsOf(terminal.server!, 2)).toContain('plan_propose');
    expect(toolsOf(terminal.server!, 2)).not.toContain('write');
    expect(((terminal.server!.requests[2]!.json as Sent).messages[0]!.content as string)).toMatch(/Plan mode is on/);
    resumed.line('/plan');
    await resumed.waitFor('plan mode off', /plan mode off: the write tools are back/);
    resumed.line('Now do it.');
    await resumed.waitFor('the answer', /Working now\./);
    expect(toolsOf(terminal.server!, 3)).toContain('write');
    expect(toolsOf(terminal.server!, 3)).not.toContain('plan_propose');
    resumed.line('/exit');
    await resumed.waitFor('the exit code', /EXIT=0/);

    const [file] = listSessionFiles(terminal.sessions);
    const planned = readSession(file!.file).events.filter((e) => e.type === 'plan/mode' || e.type === 'plan/review');
    expect(planned).toMatchObject([
      { type: 'plan/mode', active: true, by: 'flag' },
      { type: 'plan/review', id: 'pp1', decision: 'sent-back', comment: 'keep the first line as it is' },
      { type: 'plan/mode', active: false, by: 'user' },
    ]);
    expect(fs.readFileSync(path.join(terminal.workspace, 'a.txt'), 'utf8')).toBe('alpha\n');
  }, 120_000);
});
