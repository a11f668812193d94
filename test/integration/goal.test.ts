// Goals worked in rounds (docs/goals.md): `--goal` with `--goal-check "npm test"` runs rounds against
// a scripted model until the check passes, stops at --max-rounds, and resumes after kill -9. Real
// harness, real sandbox, real `npm test`, the real CLI binary, a real HTTP model server on loopback;
// only the model's choices are scripted.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGoal } from '../../src/agent/goal.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, listSessionFiles, readSession, type SessionEvent } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');

let workspace: string;
let sessionDir: string;
let harness: Harness | undefined;
const servers: ScriptedServer[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-goal-ws-')));
  sessionDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-goal-log-')));
  // `npm test` passes once value.txt says ok.
  fs.writeFileSync(path.join(workspace, 'package.json'), JSON.stringify({ name: 'goal-ws', version: '1.0.0', private: true, scripts: { test: 'node check.js' } }));
  fs.writeFileSync(
    path.join(workspace, 'check.js'),
    "const v = require('fs').readFileSync('value.txt', 'utf8').trim();\n" +
      "if (v !== 'ok') { console.error('CHECK FAILED: value.txt says ' + JSON.stringify(v) + ', expected \"ok\"'); process.exit(1); }\n" +
      "console.log('CHECK PASSED');\n",
  );
  fs.writeFileSync(path.join(workspace, 'value.txt'), 'broken\n');
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function serve(script: ScriptedReply[]): Promise<ScriptedServer> {
  const server = await startScriptedOpenAIServer(script);
  servers.push(server);
  return server;
}

/** One round's replies: write value.txt, claim the goal, end the turn. */
function round(value: string, n: number): ScriptedReply[] {
  return [
    reply.toolCalls([
      { id: `w${n}`, name: 'write', args: { path: 'value.txt', content: `${value}\n` } },
      { id: `g${n}`, name: 'goal_done', args: { evidence: `value.txt now says ${value}` } },
    ]),
    reply.text(`Round ${n} done.`),
  ];
}

const goalEvents = (events: readonly SessionEvent[]) => events.filter((e) => e.type.startsWith('goal/'));

function ptc(args: string[]): { done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>; kill: () => void } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: workspace, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))),
    kill: () => void child.kill('SIGKILL'),
  };
}

async function libraryGoal(preset: 'ptc' | 'standard', script: ScriptedReply[], goal: Parameters<typeof runGoal>[0]['goal']) {
  const server = await serve(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto' });
  const writer = createSessionWriter({ dir: sessionDir });
  const result = await runGoal({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    sink: writer,
    sessionId: writer.sessionId,
    sessionDir,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    goal,
  });
  writer.close();
  return { result, server, events: readSession(writer.file).events };
}

describe('goals', () => {
  it('in ptc mode a program claims with tools.goal_done; without a check the claim meets the goal', async () => {
    const { result, events } = await libraryGoal(
      'ptc',
      [
        reply.text('Not yet.'),
        reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: 'await tools.goal_done({ evidence: "said hello" }); return "claimed";', description: 'claim' } }]),
        reply.text('Done.'),
      ],
      { objective: 'say hello' },
    );
    expect(result).toMatchObject({ outcome: 'met', rounds: 2, evidence: 'said hello' });
    expect(goalEvents(events).map((e) => e.type)).toEqual(['goal/set', 'goal/round', 'goal/round', 'goal/met']);
    // Round 2 was told why round 1 did not count.
    const messages = events.filter((e): e is Extract<SessionEvent, { type: 'user/message' }> => e.type === 'user/message');
    expect(messages[1]!.text).toContain('without calling goal_done');
  });

  it('a goal past its token budget is abandoned before the next round', async () => {
    const { result, server, events } = await libraryGoal(
      'standard',
      [reply.text('Thinking.', { usage: { promptTokens: 400, completionTokens: 200 } }), reply.text('More.')],
      { objective: 'never claimed', maxTokens: 500 },
    );
    expect(result).toMatchObject({ outcome: 'abandoned', reason: 'max-tokens', rounds: 1 });
    expect(result.message).toContain('--max-tokens');
    expect(events.at(-1)).toMatchObject({ type: 'goal/abandoned', reason: 'max-tokens', round: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('a round still running when the time budget runs out is stopped and the goal abandoned', async () => {
    const { result, events } = await libraryGoal('standard', [reply.hang()], { objective: 'never answered', maxTimeMs: 1_000 });
    expect(result).toMatchObject({ outcome: 'abandoned', reason: 'max-time', rounds: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'goal/abandoned', reason: 'max-time' });
  });

  it('runs rounds until the check passes; the failing check output opens the next round', async () => {
    const server = await serve([...round('wrong', 1), ...round('ok', 2)]);
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto' });
    const writer = createSessionWriter({ dir: sessionDir });
    const result = await runGoal({
      scope: harness.ctx,
      cwd: workspace,
      preset: 'standard',
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      sink: writer,
      sessionId: writer.sessionId,
      sessionDir,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      goal: { objective: 'make npm test pass', check: 'npm test', maxRounds: 5 },
    });
    writer.close();
    expect(result).toMatchObject({ outcome: 'met', rounds: 2, evidence: 'value.txt now says ok' });
    const { events } = readSession(writer.file);
    expect(goalEvents(events).map((e) => [e.type, 'round' in e ? e.round : undefined, 'passed' in e ? e.passed : undefined])).toEqual([
      ['goal/set', undefined, undefined],
      ['goal/round', 1, undefined],
      ['goal/check', 1, false],
      ['goal/round', 2, undefined],
      ['goal/check', 2, true],
      ['goal/met', 2, undefined],
    ]);
    const rounds = events.filter((e): e is Extract<SessionEvent, { type: 'goal/round' }> => e.type === 'goal/round');
    expect(rounds.map((r) => r.left.rounds)).toEqual([5, 4]);
    const checks = events.filter((e): e is Extract<SessionEvent, { type: 'goal/check' }> => e.type === 'goal/check');
    expect(checks[0]!.output).toContain('CHECK FAILED: value.txt says "wrong"');
    expect(checks[1]!.output).toContain('CHECK PASSED');
    // Each round is a turn of its own, and round 2's request carries round 1's check output.
    expect(events.filter((e) => e.type === 'session/start' || e.type === 'session/resume').map((e) => e.type)).toEqual(['session/start', 'session/resume']);
    expect(server.requests[2]!.body).toContain('CHECK FAILED');
    expect(server.requests[0]!.body).toContain('goal_done');
    expect(fs.readFileSync(path.join(workspace, 'value.txt'), 'utf8')).toBe('ok\n');
  });

  it('ptc run --goal stops at --max-rounds with goal abandoned and exit 1', async () => {
    const server = await serve([...round('wrong', 1), ...round('still wrong', 2), ...round('ok', 3)]);
    const run = ptc(['run', '--goal', 'make npm test pass', '--goal-check', 'npm test', '--max-rounds', '2', '--json', '--preset', 'standard', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessionDir]);
    const { code, stdout, stderr } = await run.done;
    expect(code, stderr).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ goal: { outcome: 'abandoned', rounds: 2, reason: 'max-rounds' } });
    expect(stderr).toContain('--max-rounds');
    const [file] = listSessionFiles(sessionDir);
    const events = readSession(file!.file).events;
    expect(goalEvents(events).map((e) => e.type)).toEqual(['goal/set', 'goal/round', 'goal/check', 'goal/round', 'goal/check', 'goal/abandoned']);
    expect(events.at(-1)).toMatchObject({ type: 'goal/abandoned', round: 2, reason: 'max-rounds' });
    // The third round's replies were never asked for.
    expect(server.requests).toHaveLength(4);
  });

  it('a goal killed with kill -9 mid-round resumes with --continue in the round it was in', async () => {
    // Round 1 fails its check; round 2's first request never gets an answer, and the process is killed there.
    const first = await serve([...round('wrong', 1), reply.hang()]);
    const common = ['--json', '--preset', 'standard', '--model', 'scripted', '--session-dir', sessionDir];
    const run = ptc(['run', '--goal', 'make npm test pass', '--goal-check', 'npm test', '--max-rounds', '4', '--base-url', first.baseUrl, ...common]);
    await first.waitForRequests(3);
    run.kill();
    expect((await run.done).signal).toBe('SIGKILL');

    const second = await serve(round('ok', 2));
    const resumed = await ptc(['run', '--continue', '--base-url', second.baseUrl, ...common]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ goal: { outcome: 'met', rounds: 2 } });
    const [file] = listSessionFiles(sessionDir);
    const events = readSession(file!.file).events;
    const rounds = events.filter((e): e is Extract<SessionEvent, { type: 'goal/round' }> => e.type === 'goal/round');
    expect(rounds.map((r) => [r.round, r.resumed === true, r.left.rounds])).toEqual([
      [1, false, 4],
      [2, false, 3],
      [2, true, 3],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'goal/met', round: 2 });
    // The resumed round's request carries the log so far, including round 1's failed check.
    expect(second.requests[0]!.body).toContain('CHECK FAILED');
    expect(second.requests[0]!.body).toContain('interrupted');
  });
});
