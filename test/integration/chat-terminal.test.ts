// `ptc chat` on a real pseudo-terminal (tmux), read off the screen as a person would: slash commands
// and their completion (an unknown one never reaches the model), markdown rendered on a terminal and
// left plain under NO_COLOR, unified diffs of edits in approval prompts, after each edit and in
// /diff, and the status line. The built binary, a real model server on loopback; only the model's
// choices are scripted. docs/chat.md.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSessionFiles } from '../../src/session/index.js';
import { reply, type ScriptedReply } from '../fixtures/scripted-openai-server.js';
import { chatTerminals } from '../helpers/chat-terminal.js';
import { hasTmux } from '../helpers/tmux-terminal.js';

if (!hasTmux) console.warn('Skipping the ptc chat terminal tests: tmux is not installed (apt-get install tmux).');

describe.skipIf(!hasTmux)('ptc chat on a terminal', () => {
  const terminal = chatTerminals('ptc-chat-term', (workspace) => fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\nbeta\n'));
  const startChat = (script: ScriptedReply[], env: Record<string, string> = {}, name = 'chat') =>
    terminal.start(script, { args: ['--timeout', '120000'], env, name });

  it('runs slash commands, completes their names, refuses unknown ones without asking the model, and shows the status line', async () => {
    const chat = await startChat([reply.text('Hello there.', { usage: { promptTokens: 13_107, completionTokens: 100 } })]);

    chat.keys('/he', 'Tab');
    await chat.waitFor('the completed command', /› \/help $/m);
    chat.keys('Enter');
    await chat.waitFor('the help', /\/approve \[never\|writes\|all\]\s+show the approval mode/);
    expect(chat.screen()).toMatch(/\/diff\s+the files this session changed/);

    chat.keys('/approve wr', 'Tab');
    await chat.waitFor('the completed argument', /› \/approve writes$/m);
    chat.keys('Enter');
    await chat.waitFor('the mode', /approvals "writes": calls that may change something ask/);

    chat.line('/hlep');
    await chat.waitFor('the unknown command error', /unknown command \/hlep\. Did you mean \/help\?.*\/help lists the commands/);
    chat.line('/approve sometimes');
    await chat.waitFor('the bad mode error', /\/approve takes never, writes or all, not "sometimes"/);
    chat.line('/approve all');
    await chat.waitFor('the new mode', /approvals "all": every call asks/);
    chat.line('/cost');
    await chat.waitFor('the empty cost table', /No model requests yet in this chat\./);
    chat.line('/model');
    await chat.waitFor('the model', /^model openai-compatible:deepseek-chat$/m);
    chat.line('/preset');
    await chat.waitFor('the preset', /^preset ptc; available: .*\bminimal\b/m);
    chat.line('/diff');
    await chat.waitFor('no changes yet', /No file changes in this session yet\./);
    // Nothing typed so far was a message.
    expect(terminal.server!.requests).toHaveLength(0);

    // `//` sends one leading slash to the model.
    chat.line('//hello, model');
    await chat.waitFor('the answer', /Hello there\./);
    const sent = (terminal.server!.requests[0]!.json as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
    expect(JSON.stringify(sent)).toContain('/hello, model');
    expect(JSON.stringify(sent)).not.toContain('//hello');
    // 13,107 + 100 tokens of a 131,072-token window; 13,107 × $0.28/M + 100 × $0.42/M.
    await chat.waitFor('the status line', /── preset ptc · openai-compatible:deepseek-chat · 13k in \/ 100 out · \$0\.0037 · context 10% of 131k · approve all/);
    chat.line('/cost');
    await chat.waitFor('the cost table', /openai-compatible:deepseek-chat\s+13k in\s+100 out\s+\$0\.0037/);

    const [first] = listSessionFiles(terminal.sessions);
    chat.line('/sessions');
    await chat.waitFor('the session list', new RegExp(`^${first!.id}\\s`, 'm'));
    chat.line('/clear');
    await chat.waitFor('the cleared session', new RegExp(`Closed session ${first!.id}; the next message starts a new session`));
    chat.line('/resume');
    await chat.waitFor('the resumed session', new RegExp(`Continuing session ${first!.id}\\.`));
    chat.line(`/resume ${first!.id.slice(0, 12)}`);
    await chat.waitFor('the refusal to resume the open session', new RegExp(`Session ${first!.id} is the one open`));
    chat.line('/exit');
    await chat.waitFor('the exit code', /EXIT=0/);
    expect(terminal.server!.requests).toHaveLength(1);
  }, 120_000);

  it('switches preset and model for the next message with /preset and /model', async () => {
    const chat = await startChat([reply.text('First.'), reply.text('Second.')]);
    chat.line('/preset nosuch');
    await chat.waitFor('the unknown preset error', /^ptc: .*nosuch/m);
    chat.line('First.');
    await chat.waitFor('the first answer', /^First\.$/m);
    chat.line('/preset minimal');
    await chat.waitFor('the switched preset', /^preset minimal from the next message on$/m);
    chat.line('/model deepseek-reasoner');
    await chat.waitFor('the switched model', /^model openai-compatible:deepseek-reasoner from the next message on$/m);
    chat.line('Second.');
    await chat.waitFor('the second status line', /── preset minimal · openai-compatible:deepseek-reasoner · /);
    const [first, second] = terminal.server!.requests.map((r) => r.json as { model: string; tools: { function: { name: string } }[] });
    const tools = (body: typeof first) => body!.tools.map((t) => t.function.name);
    expect(first!.model).toBe('deepseek-chat');
    expect(tools(first)).toContain('run_code');
    expect(second!.model).toBe('deepseek-reasoner');
    expect(tools(second)).not.toContain('run_code');
    expect(tools(second)).toEqual(['bash', 'str_replace_editor']);
    // One conversation across the switch: the second request carries the first turn.
    expect((second as unknown as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  }, 90_000);

  const answer = '# Plan\n\nUse **bold** words and `code`.\n\n```ts\nconst answer = 42;\n```\n\n- one\n- two\n';

  it('renders the model markdown on a terminal', async () => {
    const chat = await startChat([reply.text(answer)]);
    chat.line('Plan it.');
    await chat.waitFor('the answer', /const answer = 42;/);
    await chat.waitFor('the status line', /── preset ptc/);
    const text = chat.screen();
    expect(text).toMatch(/Use bold words and code\./);
    expect(text).not.toContain('**bold**');
    expect(text).not.toContain('```');
    expect(text).toMatch(/^\s+\* one$/m);
    // Bold and the highlighted keyword are colour and weight, not characters.
    const coloured = chat.screen(true);
    expect(coloured).toMatch(/\u001b\[1mbold/);
    expect(coloured).toMatch(/\u001b\[[0-9;]*m\s*const\u001b\[39m/);
  }, 60_000);

  it('leaves the markdown plain with NO_COLOR', async () => {
    const chat = await startChat([reply.text(`${answer}\nClear\u001b[2J done.\n`)], { NO_COLOR: '1' });
    chat.line('Plan it.');
    await chat.waitFor('the answer', /^Clear\\u001b\[2J done\.$/m);
    expect(chat.screen()).toMatch(/^- two$/m);
    const text = chat.screen();
    expect(text).toContain('Use **bold** words and `code`.');
    expect(text).toMatch(/^```ts$/m);
    expect(text).toMatch(/^# Plan$/m);
    expect(chat.screen(true)).not.toMatch(/\u001b\[1m/);
  }, 60_000);

  it('shows the diff of an edit in the approval prompt, after the edit, and in /diff', async () => {
    const program = "await tools.edit({ path: 'a.txt', old_string: 'beta', new_string: 'gamma\\u001b[2J' });\nreturn 'edited';";
    const chat = await startChat([reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'edit a note' } }]), reply.text('Edited.')]);
    chat.line('Change beta.');
    await chat.waitFor('the approval question', /Approval needed: edit /);
    await chat.waitFor('the diff in the question', /^\s+\+gamma\\u001b\[2J$/m);
    const question = chat.screen();
    expect(question).toMatch(/the change it would make:\n\s+--- a\/a\.txt\n\s+\+\+\+ b\/a\.txt\n\s+@@ -1,2 \+1,2 @@\n\s+ alpha\n\s+-beta\n\s+\+gamma\\u001b\[2J/);
    chat.line('y');
    await chat.waitFor('the answer', /Edited\./);
    const after = chat.screen();
    // The progress line names the sub-call's file; the diff of what was written follows.
    expect(after).toMatch(/ {6}· edit a\.txt\n {8}--- a\/a\.txt\n {8}\+\+\+ b\/a\.txt\n {8}@@ -1,2 \+1,2 @@\n {9}alpha\n {8}-beta\n {8}\+gamma\\u001b\[2J\n  ✓ run_code/);
    expect(after.match(/^\s+-beta$/gm)).toHaveLength(2);
    expect(fs.readFileSync(path.join(terminal.workspace, 'a.txt'), 'utf8')).toBe('alpha\ngamma\u001b[2J\n');

    chat.line('/diff');
    await chat.waitFor('the session diff', /-beta/, 3);
    expect(chat.screen().split('/diff').at(-1)).toMatch(/--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,2 \+1,2 @@\n alpha\n-beta\n\+gamma\\u001b\[2J/);
  }, 90_000);
});
