// Plan mode through `ptc run` (docs/plan-mode.md): `--plan` plans with the write tools hidden; with no
// one to review, a proposal is recorded as unreviewed and the model is told to stop; `ptc run
// --continue` comes back in plan mode (the log says so) without the flag. The built binary, a real
// model server on loopback; only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { runPtc } from '../helpers/run-ptc.js';

let tmp: string;
let workspace: string;
let sessions: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-plan-run-'));
  workspace = path.join(tmp, 'ws');
  sessions = path.join(tmp, 'sessions');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Sent = { tools?: { function: { name: string } }[]; messages: unknown[] };
const toolsOf = (i: number): string[] => ((server!.requests[i]!.json as Sent).tools ?? []).map((t) => t.function.name);

describe('plan mode in ptc run', () => {
  it('--plan records an unreviewed proposal; --continue is still planning; a write the model tries is not there', async () => {
    server = await startScriptedOpenAIServer([
      reply.toolCall('plan_propose', { markdown: 'Replace alpha.', steps: ['Edit a.txt'] }, 'pp1'),
      reply.text('Here is the plan: edit a.txt.'),
      reply.toolCall('write', { path: 'a.txt', content: 'omega\n' }, 'w1'),
      reply.text('I cannot write in plan mode.'),
    ]);
    const env = { HOME: tmp, PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
    const common = ['--preset', 'standard', '--base-url', server.baseUrl, '--model', 'deepseek-chat', '--session-dir', sessions];
    const first = await runPtc(['run', ...common, '--plan', 'Replace alpha with omega.'], { cwd: workspace, env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Here is the plan');
    expect(toolsOf(0)).toContain('plan_propose');
    expect(toolsOf(0)).not.toContain('write');
    expect(JSON.stringify(server.requests[1]!.json)).toMatch(/No one can review the plan in this run/);

    const second = await runPtc(['run', ...common, '--continue', 'Do it now.'], { cwd: workspace, env });
    expect(second.code, second.stderr).toBe(0);
    expect(toolsOf(2)).toContain('plan_propose');
    expect(toolsOf(2)).not.toContain('write');
    // The model named a hidden tool: it is unknown, and the file is as it was.
    expect(JSON.stringify(server.requests[3]!.json)).toMatch(/Unknown tool \\"write\\"/);
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('alpha\n');

    const events = readSession(listSessionFiles(sessions)[0]!.file).events;
    expect(events.filter((e) => e.type === 'plan/mode' || e.type === 'plan/review')).toMatchObject([
      { type: 'plan/mode', active: true, by: 'flag' },
      { type: 'plan/review', id: 'pp1', decision: 'unreviewed' },
    ]);
  });
});
