// The meter and compaction through the CLI (docs/compaction.md): `ptc run --json` reports the meter
// and the compactions, the window comes from --context-window or the config's environment variable,
// `--continue` after a compaction sends the rebuilt request (`sessions show --request` prints the
// same messages), and a request that cannot fit ends with CONTEXT. Real `ptc` processes, a real
// HTTP model server on loopback; only the model's choices are scripted.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
let workspace: string;
let sessions: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compact-cli-')));
  sessions = path.join(workspace, '.sessions');
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${`file ${i}: ${'0123456789'.repeat(9)}\n`.repeat(60)}`);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
});

function ptc(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: workspace, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function serve(script: ScriptedReply[], summary: ScriptedReply = reply.text('Summary: six files were read.')): Promise<string[]> {
  server = await startScriptedOpenAIServer(script, { respond: (body) => (body.tools === undefined ? summary : undefined) });
  return ['--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions, '--preset', 'standard'];
}

const readSteps = (n: number): ScriptedReply[] => Array.from({ length: n }, (_, i) => reply.toolCall('read', { path: `f${i % 6}.txt` }));

describe('ptc run and the meter', () => {
  it('--json reports the meter and the compactions; --continue sends the request sessions show rebuilds', async () => {
    const args = await serve([...readSteps(12), reply.text('Read them all.'), reply.text('Yes.')]);
    const run = await ptc(['run', 'Read the files.', '--json', '--context-window', '6000', ...args]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { sessionId: string; context: { lastRequestTokens: number; window: number; compactions: { pruned: number; summarised: number; failed: number } } };
    expect(out.context.window).toBe(6000);
    expect(out.context.lastRequestTokens).toBeGreaterThan(0);
    expect(out.context.lastRequestTokens).toBeLessThanOrEqual(6000);
    expect(out.context.compactions.pruned + out.context.compactions.summarised).toBeGreaterThan(0);
    expect(out.context.compactions.failed).toBe(0);

    // The window from the environment (a config key's variable) on the next turn.
    const next = await ptc(['run', '--continue', 'Done?', '--json', ...args], { PTC_CONTEXT_WINDOW: '6000' });
    expect(next.code).toBe(0);
    expect((JSON.parse(next.stdout) as { context: { window: number } }).context.window).toBe(6000);
    const agentRequests = server!.requests.filter((r) => (r.json as { tools?: unknown }).tools !== undefined);
    const sent = agentRequests.at(-1)!.json as { messages: { role: string; content: unknown }[] };
    const shown = await ptc(['sessions', 'show', out.sessionId, '--request', String(agentRequests.length), '--session-dir', sessions]);
    expect(shown.code).toBe(0);
    const rebuilt = JSON.parse(shown.stdout) as { system: string; messages: { role: string }[] };
    // The wire has the system prompt as its first message; the rest are the rebuilt messages, one for one.
    expect(sent.messages[0]).toEqual({ role: 'system', content: rebuilt.system });
    expect(sent.messages.slice(1).map((m) => m.role)).toEqual(rebuilt.messages.map((m) => m.role));
    // The continued request is the compacted one: old results as stubs, or the oldest part as the summary.
    expect(JSON.stringify(sent.messages)).toMatch(/pruned to save context|Summary of the earlier part of this session/);
  }, 120_000);

  it('refuses a window flag that is no window, before anything runs', async () => {
    const run = await ptc(['run', 'x', '--context-window', '12', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--context-window/);
    expect(run.stderr).toMatch(/1024/);
    const env = await ptc(['run', 'x', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], { PTC_COMPACT_THRESHOLD: '3' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/PTC_COMPACT_THRESHOLD/);
    expect(env.stderr).toMatch(/at most 1/);
  }, 60_000);

  it('ends with CONTEXT, naming what to do, when the summary fails and the request cannot fit', async () => {
    const chatty = Array.from({ length: 20 }, (_, i) => reply.toolCalls([{ name: 'glob', args: { pattern: '*.none' } }], { text: `step ${i} ${'y'.repeat(2_500)}` }));
    const args = await serve([...chatty, reply.text('done')], reply.error(503));
    const run = await ptc(['run', 'Think.', '--json', '--context-window', '9000', ...args]);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as { code: string; error: string; sessionFile: string };
    expect(out.code).toBe('CONTEXT');
    expect(out.error).toMatch(/context window of 9000 tokens/);
    expect(out.error).toMatch(/--context-window|new session/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const lines = fs.readFileSync(out.sessionFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(lines.some((l) => l.type === 'context/compaction-failed')).toBe(true);
    expect(lines.at(-1)?.type).toBe('session/end');
  }, 60_000);
});
