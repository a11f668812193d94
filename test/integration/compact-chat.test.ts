// `/compact [focus]` in `ptc chat` (docs/compaction.md, "Compaction"): on demand, whatever the fill,
// it prunes and summarises the open session with the focus in the summary request, logs the
// compaction, and the next message's request is the compacted history. The chat runs in-process over
// pipes; a real HTTP model server on loopback, only the model's choices scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { startPipeChat } from '../helpers/pipe-chat.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessions: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compact-chat-')));
  sessions = path.join(workspace, '.sessions');
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${`file ${i}: ${'abcdefghij'.repeat(8)}\n`.repeat(40)}`);
});
afterEach(async () => {
  await server?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

describe('/compact in chat', () => {
  it('compacts the open session with the focus, and the next request carries the summary instead of the old steps', async () => {
    const summaries: string[] = [];
    server = await startScriptedOpenAIServer(
      [...Array.from({ length: 6 }, (_, i) => reply.toolCall('read', { path: `f${i}.txt` })), reply.text('Read six files.'), reply.text('They hold numbered lines.')],
      {
        respond: (body) => {
          if (body.tools !== undefined) return undefined;
          summaries.push(JSON.stringify(body.messages));
          return reply.text('Six files were read; each holds numbered lines.');
        },
      },
    );
    const { input, done, waitFor } = startPipeChat({
      cwd: workspace,
      preset: 'standard',
      sandbox: 'auto',
      baseUrl: server.baseUrl,
      model: 'scripted',
      contextWindow: 100_000,
      sessionDir: sessions,
      approve: 'never',
      env: { HOME: workspace },
    });
    input.write('Read the files.\n');
    await waitFor(/── preset/);
    input.write('/compact what the files hold\n');
    await waitFor(/compacted: \d+ old results? pruned, steps before \d+ summarised/);
    input.write('What do they hold?\n');
    await waitFor(/── preset[^\n]*\n[\s\S]*── preset/);
    input.end();
    expect(await done).toBe(0);

    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain('Give most room to: what the files hold');
    const [file] = listSessionFiles(sessions);
    const { events } = readSession(file!.file);
    const compaction = events.find((e) => e.type === 'context/compaction');
    expect(compaction).toMatchObject({ trigger: 'manual', focus: 'what the files hold' });
    const last = server.requests.filter((r) => (r.json as { tools?: unknown }).tools !== undefined).at(-1)!;
    expect(last.body).toContain('Six files were read; each holds numbered lines.');
    // The summarised steps' results are gone from the request; the log still has them whole.
    expect(last.body).not.toContain('file 0: abcdefghij');
    expect(events.some((e) => e.type === 'tool/result' && e.content.includes('file 0: abcdefghij'))).toBe(true);
  }, 120_000);
});

describe('a request that cannot fit, in chat', () => {
  it('ends the turn with CONTEXT and what to do, and the conversation goes on', async () => {
    const chatty = Array.from({ length: 20 }, (_, i) => reply.toolCalls([{ name: 'glob', args: { pattern: '*.none' } }], { text: `step ${i} ${'y'.repeat(2_500)}` }));
    server = await startScriptedOpenAIServer([...chatty, reply.text('unused')], {
      // Every summary request fails, so compaction cannot make the request fit.
      respond: (body) => (body.tools === undefined ? reply.error(503) : undefined),
    });
    const { input, done, stderr, waitFor } = startPipeChat({
      cwd: workspace,
      preset: 'standard',
      sandbox: 'auto',
      baseUrl: server.baseUrl,
      model: 'scripted',
      contextWindow: 9_000,
      sessionDir: sessions,
      approve: 'never',
      env: { HOME: workspace },
    });
    input.write('Think.\n');
    await waitFor(/context window of 9000 tokens[\s\S]*\/compact, or \/clear/);
    // Still a conversation: a command answers.
    input.write('/cost\n');
    await waitFor(/scripted/);
    input.end();
    expect(await done).toBe(0);
    expect(stderr()).not.toMatch(/\n\s+at /);
  }, 90_000);
});
