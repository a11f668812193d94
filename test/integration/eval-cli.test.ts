// `ptc eval` through the real binary (dist/, built by the global setup), as a user runs it: a replay
// of a few tasks, the missing-key message (exit 2, no stack, no result), and a live run against the
// scripted OpenAI-compatible server. The command lives in src/cli/eval-command.ts; until main.ts
// registers it the binary has no `eval` and this file is skipped (remove the guard then).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readResults } from '../../src/eval/results.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-eval-cli-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };

/** Async so a scripted server in this process can answer the child. */
function ptc(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: home, env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('ptc eval (binary)', () => {
  it('--replay --presets ptc,standard solves the selected tasks and prints the summary', async () => {
    const out = path.join(home, 'replay');
    const { code, stdout, stderr } = await ptc(['eval', 'm3tooleval', '--replay', '--presets', 'ptc,standard', '--tasks', 'travel_itinerary_planning/plan_trip_to_0,cryptobotanists_plant_dna_sequencer/*palindrome*', '--out', out]);
    expect(stderr).toContain(`summary: ${path.join(out, 'summary.md')}`);
    expect(code).toBe(0);
    expect(stdout).toContain('| ptc | 2/2 (100.0%) |');
    expect(stdout).toContain('| standard | 2/2 (100.0%) |');
    const results = readResults(out);
    expect(results).toHaveLength(4);
    expect(results.every((r) => r.success && r.turns >= 2 && r.inputTokens > 0)).toBe(true);
  });

  it('without the key names the variable to set, exits 2 and writes no result', async () => {
    const out = path.join(home, 'nokey');
    const { code, stderr } = await ptc(['eval', 'm3tooleval', '--model', 'deepseek:deepseek-chat', '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain('DEEPSEEK_API_KEY is not set');
    expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(fs.existsSync(path.join(out, 'results.jsonl'))).toBe(false);
  });

  it('runs against an OpenAI-compatible server given by --base-url', async () => {
    const server = await startScriptedOpenAIServer([reply.toolCall('reverse_string', { string: 'abc' }), reply.text('Answer: UUU')]);
    try {
      const out = path.join(home, 'live');
      const { code, stdout } = await ptc(['eval', 'm3tooleval', '--base-url', server.baseUrl, '--model', 'scripted', '--preset', 'standard', '--tasks', 'cryptobotanists_plant_dna_sequencer/find_most_common_nucleotide_and_transcribe', '--out', out]);
      expect(code).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(readResults(out)[0]).toMatchObject({ success: true, turns: 2, toolCalls: 1 });
      expect(stdout).toContain('# M3ToolEval: openai-compatible:scripted');
    } finally {
      await server.close();
    }
  });
});
