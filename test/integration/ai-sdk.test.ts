// The AI SDK adapter (docs/ai-sdk.md): the AI SDK's own generateText, with @ai-sdk/openai-compatible
// pointed at the loopback scripted model server, drives a harness's tools. Only the model's choices
// are scripted; programs run in the real sandbox, native calls pass the real pipeline.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAiSdkTools, createAiSdkToolsFromList, isHarnessToolOutput, type HarnessToolOutput } from '../../src/ai-sdk/index.js';
import { installApprovals, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness, type Harness } from '../../src/harness.js';
import type { PtcRunEvent } from '../../src/ptc/run-code.js';
import type { ToolCall } from '../../src/tools/tool-runtime.js';
import { defineTool } from '../../src/tools/types.js';
import { reply, startScriptedOpenAIServer, type RecordedRequest } from '../fixtures/scripted-openai-server.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let workspace: string;

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ai-sdk-'));
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'the answer is secret-42\n');
});

afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

function modelAt(baseURL: string) {
  return createOpenAICompatible({ name: 'scripted', baseURL, apiKey: 'test-key' }).chatModel('scripted-model');
}

interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}
interface WireTool {
  function: { name: string; description?: string; parameters?: unknown };
}

function body(request: RecordedRequest | undefined): { messages: WireMessage[]; tools?: WireTool[] } {
  return request!.json as { messages: WireMessage[]; tools?: WireTool[] };
}

function harnessOutput(output: unknown): HarnessToolOutput {
  if (!isHarnessToolOutput(output)) throw new Error(`not a harness tool output: ${JSON.stringify(output)}`);
  return output;
}

/** The text of the tool message the model received on a request. */
function toolResultText(request: RecordedRequest | undefined): string {
  const tool = body(request).messages.filter((m) => m.role === 'tool');
  expect(tool).toHaveLength(1);
  return String(tool[0]!.content);
}

describe.skipIf(skipWithoutBwrap)('ptc-mode harness through generateText', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness({ cwd: workspace, preset: 'ptc', env: { PTC_HOME: path.join(workspace, '.home') }, onNote: () => {} });
  });
  afterAll(async () => harness?.dispose());

  it('runs a scripted run_code program that composes glob and read in the sandbox; the model reads its result', async () => {
    const code = [
      "const { files } = await tools.glob({ pattern: '*.txt' });",
      'const text = await tools.read({ path: files[0] });',
      "console.log(`files: ${files.join(',')}`);",
      'return text;',
    ].join('\n');
    const server = await startScriptedOpenAIServer([reply.toolCall('run_code', { code, description: 'read the notes' }), reply.text('The answer is secret-42.')]);
    const runs: PtcRunEvent[] = [];
    const offRun = harness.ctx.on('tool/ptc-run', (event) => void runs.push(event));
    const subCalls: string[] = [];
    const offSub = harness.ctx.on('tool/ptc-dispatch', (event) => void subCalls.push(event.tool));
    try {
      const toolkit = await createAiSdkTools(harness);
      expect(toolkit.mode).toBe('ptc');
      expect(Object.keys(toolkit.tools)).toEqual(['run_code']);
      const result = await generateText({
        model: modelAt(server.baseUrl),
        system: `You work in a workspace.\n\n${toolkit.instructions}`,
        prompt: 'What is the answer in the notes?',
        tools: toolkit.tools,
        stopWhen: stepCountIs(3),
      });
      expect(result.text).toBe('The answer is secret-42.');
      expect(server.requests).toHaveLength(2);

      // The first request carried run_code with the harness's wire schema and the SDK in its description.
      const tools = body(server.requests[0]).tools ?? [];
      expect(tools.map((t) => t.function.name)).toEqual(['run_code']);
      const description = tools[0]!.function.description ?? '';
      expect(description).toContain('## Calling tools with run_code');
      expect(description).toContain('```ts');
      expect(description).toMatch(/\bglob\b/);
      expect(description).toMatch(/\bread\b/);
      expect(description).not.toContain('the SDK of the system prompt');
      expect(tools[0]!.function.parameters).toMatchObject({ type: 'object', required: ['code', 'description'] });
      // The system prompt carried the instructions (tool names reachable only inside programs).
      expect(JSON.stringify(body(server.requests[0]).messages[0])).toContain('Tools are reachable only inside run_code');

      // The program ran in bwrap and its two tool calls went through the pipeline.
      expect(runs).toHaveLength(1);
      expect(runs[0]!.result.sandbox.backend).toBe('bwrap');
      expect(runs[0]!.id).toMatch(/^ai-sdk:\d+:call_1_0$/);
      expect(subCalls).toEqual(['glob', 'read']);

      // The second request carried the rendered result: the log, then the file the program read.
      const received = toolResultText(server.requests[1]);
      expect(received).toContain('files: notes.txt');
      expect(received).toContain('secret-42');
      const output = harnessOutput(result.steps[0]!.toolResults[0]!.output);
      expect(output.isError).toBe(false);
      expect(output.content).toBe(received);
      expect(output.value).toMatchObject({ logs: ['files: notes.txt'] });
    } finally {
      await offRun();
      await offSub();
      await server.close();
    }
  });

  it('gives the model the EXCEPTION text of a program that throws, and generateText completes', async () => {
    const code = "console.log('before');\nthrow new Error('boom from the program');";
    const server = await startScriptedOpenAIServer([reply.toolCall('run_code', { code, description: 'fail' }), reply.text('It failed.')]);
    try {
      const toolkit = await createAiSdkTools(harness);
      const result = await generateText({ model: modelAt(server.baseUrl), prompt: 'Run it.', tools: toolkit.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('It failed.');
      const received = toolResultText(server.requests[1]);
      expect(received).toContain('EXCEPTION');
      expect(received).toContain('boom from the program');
      expect(received).toContain('before');
      const output = result.steps[0]!.toolResults[0]!.output;
      expect(output).toMatchObject({ isError: true, error: { code: 'EXCEPTION' } });
    } finally {
      await server.close();
    }
  });

  it('stops a running program when the AI SDK abortSignal fires: the call ends as ABORTED', async () => {
    const toolkit = await createAiSdkTools(harness);
    const controller = new AbortController();
    const off = harness.ctx.on('tool/ptc-log', (event) => {
      if (event.line === 'waiting') controller.abort();
    });
    try {
      const code = "console.log('waiting');\nawait new Promise((resolve) => setTimeout(resolve, 600000));\nreturn 'too late';";
      const output = await toolkit.tools['run_code']!.execute!({ code, description: 'wait' }, { toolCallId: 'abort-me', messages: [], abortSignal: controller.signal });
      expect(output).toMatchObject({ isError: true, error: { code: 'ABORTED' } });
    } finally {
      await off();
    }
  });

  it('gives the model the INVALID_ARGS text for run_code arguments the schema rejects', async () => {
    const server = await startScriptedOpenAIServer([reply.toolCall('run_code', { code: 'return 1' }), reply.text('Oops.')]);
    try {
      const toolkit = await createAiSdkTools(harness);
      const result = await generateText({ model: modelAt(server.baseUrl), prompt: 'Run it.', tools: toolkit.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('Oops.');
      const received = toolResultText(server.requests[1]);
      expect(received).toContain('INVALID_ARGS');
      expect(received).toContain('description');
    } finally {
      await server.close();
    }
  });
});

describe('native-mode harness through generateText', () => {
  it('runs a scripted read through the pipeline: the hook and the approver see it, the model reads the file', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'standard', env: { PTC_HOME: path.join(workspace, '.home') }, onNote: () => {} });
    const server = await startScriptedOpenAIServer([reply.toolCall('read', { path: 'notes.txt' }), reply.text('Read it.')]);
    const seen: ToolCall[] = [];
    const asked: ApprovalRequest[] = [];
    const offHook = harness.ctx.on('tools/pre-execute', (call) => {
      seen.push(call);
      return undefined;
    });
    const removeApprovals = installApprovals(harness.ctx, {
      policy: 'all',
      approver: async (request) => {
        asked.push(request);
        return { decision: 'allow' };
      },
    });
    try {
      const toolkit = await createAiSdkTools(harness);
      expect(toolkit.mode).toBe('native');
      expect(toolkit.instructions).toBe('');
      expect(Object.keys(toolkit.tools)).toContain('read');
      const result = await generateText({ model: modelAt(server.baseUrl), prompt: 'Read the notes.', tools: toolkit.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('Read it.');
      // Each visible tool went on the wire with its JSON schema.
      const wire = body(server.requests[0]).tools ?? [];
      const read = wire.find((t) => t.function.name === 'read');
      expect(read?.function.parameters).toEqual(harness.tools.get('read')!.inputSchema);
      expect(seen.map((c) => [c.name, c.args])).toEqual([['read', { path: 'notes.txt' }]]);
      expect(seen[0]!.id).toMatch(/^ai-sdk:\d+:call_1_0$/);
      expect(asked.map((r) => r.tool)).toEqual(['read']);
      expect(toolResultText(server.requests[1])).toContain('secret-42');
    } finally {
      await offHook();
      await removeApprovals();
      await server.close();
      await harness.dispose();
    }
  });

  it('gives the model a denied call as PERMISSION_DENIED text, and generateText completes', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'standard', env: { PTC_HOME: path.join(workspace, '.home') }, onNote: () => {} });
    const server = await startScriptedOpenAIServer([reply.toolCall('read', { path: 'notes.txt' }), reply.text('Denied.')]);
    const removeApprovals = installApprovals(harness.ctx, { policy: 'all', approver: async () => ({ decision: 'deny', reason: 'not today' }) });
    try {
      const toolkit = await createAiSdkTools(harness);
      const result = await generateText({ model: modelAt(server.baseUrl), prompt: 'Read the notes.', tools: toolkit.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('Denied.');
      const received = toolResultText(server.requests[1]);
      expect(received).toContain('PERMISSION_DENIED');
      expect(received).toContain('not today');
      expect(received).not.toContain('secret-42');
    } finally {
      await removeApprovals();
      await server.close();
      await harness.dispose();
    }
  });

  it('ends a call with ABORTED when the AI SDK abortSignal fires before it runs', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'standard', env: { PTC_HOME: path.join(workspace, '.home') }, onNote: () => {} });
    try {
      const toolkit = await createAiSdkTools(harness);
      const controller = new AbortController();
      controller.abort();
      const execute = toolkit.tools['read']!.execute!;
      const output = await execute({ path: 'notes.txt' }, { toolCallId: 'x', messages: [], abortSignal: controller.signal });
      expect(output).toMatchObject({ isError: true, error: { code: 'ABORTED' } });
    } finally {
      await harness.dispose();
    }
  });
});

const forecast = defineTool<{ city: string }, { city: string; celsius: number }>({
  name: 'forecast',
  description: 'The temperature in a city tomorrow (a fixed fixture value).',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] },
  isConcurrencySafe: true,
  execute: ({ city }) => ({ city, celsius: city.length }),
});

describe('a tool list', () => {
  it.skipIf(skipWithoutBwrap)('becomes run_code over the list: a program composes two calls of it', async () => {
    const toolkit = await createAiSdkToolsFromList([forecast], { cwd: workspace, env: { PTC_HOME: path.join(workspace, '.home') }, onNote: () => {} });
    const code = "const a = await tools.forecast({ city: 'Oslo' });\nconst b = await tools.forecast({ city: 'Lima' });\nreturn a.celsius + b.celsius;";
    const server = await startScriptedOpenAIServer([reply.toolCall('run_code', { code, description: 'sum' }), reply.text('8.')]);
    try {
      expect(toolkit.mode).toBe('ptc');
      const result = await generateText({ model: modelAt(server.baseUrl), prompt: 'Sum.', tools: toolkit.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('8.');
      expect(body(server.requests[0]).tools?.[0]?.function.description).toContain('forecast');
      expect(toolResultText(server.requests[1])).toContain('8');
      expect(harnessOutput(result.steps[0]!.toolResults[0]!.output).value).toMatchObject({ result: 8 });
    } finally {
      await server.close();
      await toolkit.dispose();
    }
  });

  it('rejects a list with a duplicate name with CONFIG naming the tool', async () => {
    const error = await createAiSdkToolsFromList([forecast, forecast], { cwd: workspace, mode: 'native', onNote: () => {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain('forecast');
    expect((error as Error).message).toMatch(/unique/);
  });
});

describe('the built package', () => {
  it("resolves `ptc-harness/ai-sdk` from dist next to the root export", async () => {
    const script = [
      "const root = await import('ptc-harness');",
      "const adapter = await import('ptc-harness/ai-sdk');",
      'console.log(JSON.stringify({ root: typeof root.createHarness, adapter: typeof adapter.createAiSdkTools, url: import.meta.resolve("ptc-harness/ai-sdk") }));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    const out = JSON.parse(stdout) as { root: string; adapter: string; url: string };
    expect(out).toMatchObject({ root: 'function', adapter: 'function' });
    expect(fileURLToPath(out.url)).toBe(path.join(root, 'dist/ai-sdk/index.js'));
  });
});
