// `/goal OBJECTIVE` in `ptc chat` (docs/goals.md): the chat runs the goal as its next turn, in rounds,
// until the model claims it with goal_done; the rounds and the outcome are logged and shown. The
// chat runs in-process over pipes; a real HTTP model server on loopback, only the model's choices
// scripted.

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
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-goal-chat-')));
  sessions = path.join(workspace, '.sessions');
});
afterEach(async () => {
  await server?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

describe('/goal in chat', () => {
  it('runs rounds until the model claims the goal, logs them, and a bare /goal asks for the objective', async () => {
    server = await startScriptedOpenAIServer([
      // Round 1 ends without a claim; round 2 claims it.
      reply.text('Looking into it.'),
      reply.toolCall('goal_done', { evidence: 'note.txt says done' }),
      reply.text('The goal is met.'),
    ]);
    const { input, done, stderr, waitFor } = startPipeChat({
      cwd: workspace,
      preset: 'standard',
      sandbox: 'auto',
      baseUrl: server.baseUrl,
      model: 'scripted',
      sessionDir: sessions,
      approve: 'never',
      env: { HOME: workspace },
    });
    input.write('/goal\n');
    await waitFor(/\/goal takes the objective/);
    input.write('/goal write the note\n');
    await waitFor(/goal met in round 2/);
    await waitFor(/── preset/);
    input.end();
    expect(await done).toBe(0);

    const text = stderr();
    expect(text).toContain('goal: write the note');
    expect(text).toMatch(/goal round 1: \d+ round\(s\) left/);
    // The bare /goal reached no model; the goal's three model requests did.
    expect(server.requests).toHaveLength(3);
    const [file] = listSessionFiles(sessions);
    const { events } = readSession(file!.file);
    expect(events.filter((e) => e.type.startsWith('goal/')).map((e) => e.type)).toEqual(['goal/set', 'goal/round', 'goal/round', 'goal/met']);
    expect(events.find((e) => e.type === 'goal/met')).toMatchObject({ evidence: 'note.txt says done' });
  }, 90_000);
});
