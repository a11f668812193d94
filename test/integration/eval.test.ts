// `ptc eval m3tooleval` in process (the command object the CLI registers): replay runs through the
// real agent loop, provider client, replay model on loopback, tools and runtime; a live run against
// the scripted OpenAI-compatible server; resume; parallel jobs; the missing-key message.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evalCommand, runEvalCommand, type EvalFlags } from '../../src/cli/eval-command.js';
import type { CommandOutput } from '../../src/cli/commands.js';
import { readResults, type TaskResult } from '../../src/eval/results.js';
import { readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let out: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-eval-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(out, { recursive: true, force: true });
});

async function evalCli(args: string[]): Promise<CommandOutput> {
  let output: CommandOutput | undefined;
  await evalCommand((o) => (output = o)).parseAsync(args, { from: 'user' });
  return output!;
}

const TASKS = 'message_decoder/full_alien_message_decoding,trade_calculator/fluctuating_conversion_rates_impact,web_browsing/price_of_legendary_wand';

describe('ptc eval m3tooleval --replay', () => {
  it('solves a handful of tasks in both presentations and records turns, tokens and tool calls', async () => {
    const result = await evalCli(['m3tooleval', '--replay', '--presets', 'ptc,standard', '--tasks', TASKS, '--out', out]);
    expect(result.exitCode).toBe(0);
    const results = readResults(out);
    expect(results.map((r) => `${r.preset} ${r.task} ${r.success}`)).toEqual([
      'ptc message_decoder/full_alien_message_decoding true',
      'standard message_decoder/full_alien_message_decoding true',
      'ptc trade_calculator/fluctuating_conversion_rates_impact true',
      'standard trade_calculator/fluctuating_conversion_rates_impact true',
      'ptc web_browsing/price_of_legendary_wand true',
      'standard web_browsing/price_of_legendary_wand true',
    ]);
    const of = (preset: string, task: string): TaskResult => results.find((r) => r.preset === preset && r.task.startsWith(task))!;
    // ptc: one run_code step and one answer step; standard: one step per tool call plus the answer.
    expect(of('ptc', 'trade').turns).toBe(2);
    expect(of('ptc', 'trade')).toMatchObject({ toolCalls: 1, subCalls: 9 });
    expect(of('standard', 'trade')).toMatchObject({ turns: 10, toolCalls: 9, subCalls: 0 });
    expect(of('standard', 'trade').answer).toBe('[36380.0, 48150.0, 68480.0]');
    for (const r of results) {
      expect(r.inputTokens).toBeGreaterThan(0);
      expect(r.outputTokens).toBeGreaterThan(0);
      expect(r.toolResultTokens).toBeGreaterThan(0);
      expect(r.reason).toBe('completed');
      // Each run has its own session log, with the tool calls that made its answer.
      const { events } = readSession(path.join(out, r.sessionFile));
      expect(events[0]).toMatchObject({ type: 'session/start', preset: `${r.preset}-m3tooleval` });
      expect(events.filter((e) => e.type === 'llm/response')).toHaveLength(r.turns);
    }
    // Standard re-sends every tool result at each later step: more input tokens for the same work.
    expect(of('standard', 'trade').inputTokens).toBeGreaterThan(of('ptc', 'trade').inputTokens);
    // Cached input comes from the provider's usage (here: each earlier request, a prefix of the next).
    for (const r of results) expect(r.cachedInputTokens).toBeGreaterThan(0);
    expect(of('standard', 'trade').cachedInputTokens).toBeGreaterThan(of('ptc', 'trade').cachedInputTokens);

    const summary = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(result.stdout).toBe(summary);
    expect(summary).toContain('| ptc | 3/3 (100.0%) |');
    expect(summary).toContain('| standard | 3/3 (100.0%) |');
    expect(summary).toContain('| ptc / standard | success |');
    expect(summary).toContain('![Success and tokens per domain, ptc against standard](summary.svg)');
    const svg = fs.readFileSync(path.join(out, 'summary.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('>decoder</text>');
    expect(svg).toContain('>100%</text>');
  });

  it('--resume skips the runs results.jsonl has and does the rest', async () => {
    const first = await evalCli(['m3tooleval', '--replay', '--preset', 'ptc', '--tasks', 'message_decoder/*', '--out', out]);
    expect(first.exitCode).toBe(0);
    const lines = fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(8);
    // Keep three finished runs, as if the run had been interrupted, and tear the last line.
    fs.writeFileSync(path.join(out, 'results.jsonl'), `${lines.slice(0, 3).join('\n')}\n{"task": "message_decoder/torn`);
    const kept = readResults(out).map((r) => r.sessionFile);
    const second = await evalCli(['m3tooleval', '--resume', out]);
    expect(second.exitCode).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(8);
    expect(results.slice(0, 3).map((r) => r.sessionFile)).toEqual(kept);
    expect(new Set(results.map((r) => r.task)).size).toBe(8);
    expect(results.every((r) => r.success && r.preset === 'ptc')).toBe(true);
    expect(fs.readdirSync(path.join(out, 'sessions'))).toHaveLength(8 + 5);
  });

  it('--jobs 2 runs tasks side by side with the same results', async () => {
    const progress: string[] = [];
    const flags: EvalFlags = { replay: true, presets: ['ptc', 'standard'], tasks: ['cryptobotanists_plant_dna_sequencer/*'], jobs: 2, out, sandbox: 'auto' };
    const result = await runEvalCommand('m3tooleval', flags, { env: {}, writeProgress: (line) => progress.push(line) });
    expect(result.exitCode).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(16);
    expect(results.filter((r) => r.success)).toHaveLength(16);
    // Two runs overlapped: some run started before the previous one in file order had ended.
    const spans = results.map((r) => {
      const { events } = readSession(path.join(out, r.sessionFile));
      return [Date.parse(events[0]!.ts), Date.parse(events.at(-1)!.ts)] as const;
    });
    expect(spans.some(([start], i) => spans.some(([s, end], j) => j !== i && s <= start && start < end))).toBe(true);
    expect(progress.at(-1)).toMatch(/^\[#{24}\] 16\/16 · success 16\/16/);
  });
});

describe('ptc eval m3tooleval, usage errors', () => {
  it('refuses a --tasks glob that matches nothing, an unknown preset and an unknown suite', async () => {
    await expect(runEvalCommand('m3tooleval', { replay: true, tasks: ['nothing/*'], out, sandbox: 'auto' }, { env: {} })).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining('No M3ToolEval task matches') });
    await expect(runEvalCommand('m3tooleval', { replay: true, preset: ['minimal'], out, sandbox: 'auto' }, { env: {} })).rejects.toMatchObject({ code: 'CONFIG' });
    await expect(runEvalCommand('gaia', { replay: true, out, sandbox: 'auto' }, { env: {} })).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining('available: m3tooleval') });
  });
});

describe('ptc eval m3tooleval against a model', () => {
  it('says which variable to set when the key is missing, and writes no result', async () => {
    const flags: EvalFlags = { model: 'deepseek:deepseek-chat', out, sandbox: 'auto' };
    await expect(runEvalCommand('m3tooleval', flags, { env: {} })).rejects.toMatchObject({
      code: 'CONFIG',
      message: expect.stringContaining('DEEPSEEK_API_KEY is not set'),
    });
    expect(fs.existsSync(path.join(out, 'results.jsonl'))).toBe(false);
  });

  it('runs a task against an OpenAI-compatible server: the tools on the wire, the answer checked, usage recorded', async () => {
    server = await startScriptedOpenAIServer([
      reply.toolCall('convert_hex_to_ascii', { hex_string: '4d4f5252' }),
      reply.toolCall('caesar_decode', { message: 'MORR', shift: 2 }),
      reply.text('Answer: KMPP', { usage: { promptTokens: 900, completionTokens: 7 } }),
    ]);
    const flags: EvalFlags = { baseUrl: server.baseUrl, model: 'scripted', preset: ['standard'], tasks: ['message_decoder/hex_caesar_combined_decoding'], out, sandbox: 'auto' };
    const result = await runEvalCommand('m3tooleval', flags, { env: {} });
    expect(result.exitCode).toBe(0);
    const first = server.requests[0]!.json as { model: string; tools: { function: { name: string } }[]; messages: { role: string; content: string }[] };
    expect(first.model).toBe('scripted');
    expect(first.tools.map((t) => t.function.name)).toEqual(['caesar_decode', 'convert_hex_to_ascii', 'maximum_value', 'minimum_value', 'reverse_string', 'string_length']);
    expect(first.messages.find((m) => m.role === 'user')!.content).toContain("The hex-encoded, Caesar-shifted message is '4d4f5252'.");
    const second = server.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages.at(-1))).toContain('MORR');
    const [r] = readResults(out);
    expect(r).toMatchObject({ success: true, answer: 'KMPP', turns: 3, toolCalls: 2, reason: 'completed' });
    expect(r!.inputTokens).toBeGreaterThanOrEqual(900);
    expect(r!.outputTokens).toBeGreaterThanOrEqual(7);
    expect(result.stdout).toContain('Live run');
  });

  it('counts a wrong answer as a failure and shows it in the summary', async () => {
    server = await startScriptedOpenAIServer([reply.text('Answer: 42')]);
    const flags: EvalFlags = { baseUrl: server.baseUrl, model: 'scripted', preset: ['ptc'], tasks: ['trade_calculator/estimate_final_value'], out, sandbox: 'auto' };
    const result = await runEvalCommand('m3tooleval', flags, { env: {} });
    expect(readResults(out)[0]).toMatchObject({ success: false, answer: '42', expected: '161.25', turns: 1 });
    expect(result.stdout).toContain('| trade_calculator/estimate_final_value | ptc | completed | 42 | 161.25 |');
  });
});
