// A tool defined with zod, end to end: called from a real program through run_code (real Node
// runtime, sandboxed child) and natively by the agent loop against a scripted model server on
// loopback. Both paths get the defaults the zod schema applies and the same checked value.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgent } from '../../src/agent/loop.js';
import { createContext, type Context } from '../../src/context/context.js';
import { resolveModel } from '../../src/llm/index.js';
import { ptcPlugin } from '../../src/ptc/plugin.js';
import { renderSdkSection } from '../../src/ptc/prompt-sections.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { PtcRuntime } from '../../src/ptc-runtime/types.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { ToolRuntime } from '../../src/tools/tool-runtime.js';
import { defineTool } from '../../src/tools/types.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let runtime: PtcRuntime;

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-zod-tool-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-zod-tool-log-'));
  runtime = createNodeRuntime({ sandbox: 'auto' });
});
afterAll(async () => {
  await runtime.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

const convert = defineTool({
  name: 'convert',
  description: 'Converts a temperature.',
  input: z.object({
    celsius: z.number().describe('Degrees Celsius.'),
    unit: z.enum(['fahrenheit', 'kelvin']).default('fahrenheit'),
    digits: z.number().int().min(0).max(4).default(1),
  }),
  output: z.object({ value: z.number(), unit: z.string() }),
  examples: [{ celsius: 21.5 }],
  isConcurrencySafe: true,
  execute(args) {
    const raw = args.unit === 'kelvin' ? args.celsius + 273.15 : (args.celsius * 9) / 5 + 32;
    return { value: Number(raw.toFixed(args.digits)), unit: args.unit };
  },
});

function registry(mode: 'native' | 'ptc'): Context {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode }));
  root.tools.register(convert);
  if (mode === 'ptc') {
    root.provide('ptcRuntime', runtime);
    root.plugin(ptcPlugin, { cwd: workspace });
  }
  return root;
}

describe('a zod tool through run_code', () => {
  it('a real program calls it; defaults apply; bad arguments reject with INVALID_ARGS', async () => {
    const root = registry('ptc');
    const code = [
      'const plain = await tools.convert({ celsius: 100 });',
      "const kelvin = await tools.convert({ celsius: 0, unit: 'kelvin', digits: 2 });",
      'let refused = "";',
      "try { await tools.convert({ celsius: 1, unit: 'rankine' }); } catch (e) { refused = `${e.code} ${e.message}`; }",
      'return { plain, kelvin, refused };',
    ].join('\n');
    const result = await root.tools.execute('run_code', { code, description: 'convert temperatures' });
    expect(result.error).toBeUndefined();
    const value = (result.value as { result: { plain: unknown; kelvin: unknown; refused: string } }).result;
    expect(value.plain).toEqual({ value: 212, unit: 'fahrenheit' });
    expect(value.kelvin).toEqual({ value: 273.15, unit: 'kelvin' });
    expect(value.refused).toMatch(/^INVALID_ARGS /);
    expect(value.refused).toContain('/unit');
  });

  it('the SDK types it from the zod schema and the prompt example comes from its examples', () => {
    const section = renderSdkSection(registry('ptc').tools);
    expect(section).toMatch(/"convert": \{\n\s+\/\*\* Degrees Celsius\. \*\/\n\s+celsius: number;\n\s+unit\?: "fahrenheit" \| "kelvin";/);
    expect(section).toContain('"convert": {\n    value: number;\n    unit: string;\n  };');
    expect(section).toContain('call that wraps convert:');
    expect(section).toContain('await tools.convert({ celsius: 21.5 })');
  });
});

describe('a zod tool presented natively', () => {
  it('the model sees its JSON Schema (defaults optional) and its call gets the defaults', async () => {
    const server = await startScriptedOpenAIServer([
      reply.toolCall('convert', { celsius: 37 }, 'c1'),
      reply.toolCall('convert', { celsius: 'warm' }, 'c2'),
      reply.text('Done.'),
    ]);
    try {
      const root = registry('native');
      const writer = createSessionWriter({ dir: sessionDir });
      const result = await runAgent({
        scope: root,
        cwd: workspace,
        preset: 'standard',
        model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
        task: 'Convert 37 C.',
        sink: writer,
        sessionId: writer.sessionId,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      writer.close();
      expect(result).toMatchObject({ reason: 'completed', text: 'Done.', steps: 3 });

      const first = server.requests[0]!.json as { tools: { function: { name: string; parameters: Record<string, unknown> } }[] };
      const parameters = first.tools.find((t) => t.function.name === 'convert')!.function.parameters;
      expect(parameters).toMatchObject({
        type: 'object',
        properties: { unit: { enum: ['fahrenheit', 'kelvin'], default: 'fahrenheit' } },
        required: ['celsius'],
      });
      expect(parameters).not.toHaveProperty('$schema');

      const results = readSession(writer.file).events.filter((e) => e.type === 'tool/result');
      expect(results).toHaveLength(2);
      expect(JSON.stringify(results[0])).toContain('98.6');
      expect(JSON.stringify(results[1])).toContain('INVALID_ARGS');
    } finally {
      await server.close();
    }
  });
});
