// Language packs (docs/language-packs.md): a third program language, POSIX shell, lives entirely in
// test/fixtures/languages/shell/ and joins the table with one registration line below. With no core
// file naming it, it gets an SDK rendering and a prompt section in the model's request, a run_code
// description, file and --lang dispatch, and a runtime whose scripts run through the real pipeline
// in a child started by the same sandbox launch as Node and Python programs. Only the model's
// choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { HarnessError } from '../../src/errors.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { registerLanguagePack } from '../../src/languages/index.js';
import { parseProgramLanguage, programLanguageOf } from '../../src/languages/program-language.js';
import { resolveModel } from '../../src/llm/index.js';
import { renderSdkSection } from '../../src/ptc/prompt-sections.js';
import type { PtcRuntime } from '../../src/ptc-runtime/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { shellPack } from '../fixtures/languages/shell/pack.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

let workspace: string;
let sessionDir: string;
let outside: string;
let unregister: () => void;

beforeAll(() => {
  unregister = registerLanguagePack(shellPack);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-sh-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-sh-log-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-sh-outside-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'host secret\n');
});
afterAll(() => {
  unregister();
  for (const dir of [workspace, sessionDir, outside]) fs.rmSync(dir, { recursive: true, force: true });
});

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

async function shellRuntime(sandbox: 'auto' | 'required' = 'auto'): Promise<PtcRuntime> {
  return shellPack.createRuntime({ sandbox, pool: false });
}

describe('a registered shell language pack', () => {
  it('puts its SDK and prompt words in the request, and the model\'s script runs through run_code and the pipeline', async () => {
    const script = [
      'content=$(tool read \'{"path": "a.txt"}\') || exit 1',
      'log "read $(printf \'%s\' "$content" | wc -c | tr -d \' \') bytes of JSON"',
      'printf \'%s\' "$content"',
    ].join('\n');
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 's1', name: 'run_code', args: { code: script, description: 'read a.txt' } }]),
      reply.text('done'),
    ]);
    const runtime = await shellRuntime();
    let harness: Harness | undefined;
    try {
      harness = await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto', runtime });
      const writer = createSessionWriter({ dir: sessionDir });
      const result = await runAgent({
        scope: harness.ctx,
        cwd: workspace,
        preset: 'ptc',
        model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
        task: 'Read a.txt.',
        sink: writer,
        sessionId: writer.sessionId,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      writer.close();
      expect(result).toMatchObject({ reason: 'completed', text: 'done' });

      const first = server.requests[0]!.json as { tools: { function: { name: string; description: string; parameters: { properties: { code: { description: string } } } } }[]; messages: { role: string; content: string }[] };
      expect(first.tools.map((t) => t.function.name)).toEqual(['run_code']);
      expect(first.tools[0]!.function.description).toMatch(/^Run a POSIX shell script/);
      expect(first.tools[0]!.function.parameters.properties.code.description).toBe('The program: a POSIX shell script.');
      const system = first.messages.find((m) => m.role === 'system')!.content;
      expect(system).toContain('`code` is a POSIX shell script (sh):');
      expect(system).toContain('```sh\n# The tools of this session, as shell functions');
      expect(system).toContain(`#   tool read '{"path": string`);
      expect(system).not.toContain('declare const tools');
      // The section the prompt carries is the pack's, as `ptc sdk` would print it.
      expect(system).toContain(renderSdkSection(harness.tools, harness.ctx));

      const { events } = readSession(writer.file);
      expect(ofType(events, 'tool/ptc-dispatch-start').map((e) => e.id)).toEqual(['s1:ptc:1']);
      expect(ofType(events, 'tool/ptc-dispatch').map((e) => [e.id, e.parentId, e.tool, e.args, e.isError])).toEqual([['s1:ptc:1', 's1', 'read', { path: 'a.txt' }, false]]);
      const toolResult = ofType(events, 'tool/result').find((e) => e.id === 's1')!;
      expect(toolResult.isError).toBe(false);
      const [logLine, value] = String(toolResult.content).split('\n');
      const read = JSON.parse(value!) as { content: string };
      expect(read.content).toContain('alpha');
      expect(logLine).toBe(`read ${Buffer.byteLength(value!)} bytes of JSON`);
    } finally {
      await harness?.dispose();
      await runtime.close();
      await server.close();
    }
  });

  it('a failed call reaches the script as a non-zero status, and its exit status becomes EXCEPTION', async () => {
    const runtime = await shellRuntime();
    const harness = await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto', runtime });
    try {
      const scope = await harness.ptcScope();
      const ok = await harness.tools.execute('run_code', { code: 'tool read \'{"path": "missing.txt"}\' 2>/dev/null || printf caught', description: 't' }, { scope });
      expect(ok.isError).toBe(false);
      expect(ok.content).toBe('caught');
      const failed = await harness.tools.execute('run_code', { code: 'exit 3', description: 't' }, { scope });
      expect(failed.isError).toBe(true);
      expect(failed.content).toContain('EXCEPTION');
      expect(failed.content).toContain('status 3');
    } finally {
      await harness.dispose();
      await runtime.close();
    }
  });

  it('dispatches .sh files and --lang sh to it, and stops when it is removed', () => {
    expect(programLanguageOf('deploy.sh')).toBe('shell');
    expect(programLanguageOf('DEPLOY.SH')).toBe('shell');
    expect(parseProgramLanguage('sh')).toBe('shell');
    expect(programLanguageOf('main.py')).toBe('python');
    const again = () => registerLanguagePack({ ...shellPack, id: 'other-shell', flags: ['bash'] });
    // Its extension is taken: CONFIG naming the pack that has it and what to do.
    expect(again).toThrow(HarnessError);
    expect(again).toThrow(/the extension \.sh is already the Shell pack's; choose another/);
  });

  it.skipIf(skipWithoutBwrap)('its scripts run confined by the same launch: no host files outside the policy, no host secrets', async () => {
    process.env['PTC_SHELL_TEST_SECRET'] = 'leaked';
    const runtime = await shellRuntime('required');
    try {
      const spec = await runtime.resolve({
        program: `cat ${path.join(outside, 'secret.txt')} 2>/dev/null && exit 0; printf 'denied:%s:' "\${PTC_SHELL_TEST_SECRET:-none}"; cat a.txt`,
        bindings: [],
        cwd: workspace,
      });
      const result = await runtime.run(spec);
      expect(result.sandbox.backend).toBe('bwrap');
      expect(result.error).toBeUndefined();
      expect(result.value).toBe('denied:none:alpha');
    } finally {
      delete process.env['PTC_SHELL_TEST_SECRET'];
      await runtime.close();
    }
  });
});

describe('without the registration', () => {
  it('the shell runtime fails PTC assembly with CONFIG naming its language and the known ones', async () => {
    unregister();
    const runtime = await shellRuntime();
    try {
      expect(programLanguageOf('deploy.sh')).toBe('typescript');
      let thrown: unknown;
      try {
        await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto', runtime });
      } catch (error) {
        thrown = error;
      }
      expect((thrown as HarnessError | undefined)?.code).toBe('CONFIG');
      expect(String((thrown as Error).message)).toMatch(/"shell" has no SDK renderer; use a runtime whose language is "typescript" \(node-runtime\) or "python" \(python-runtime\)/);
    } finally {
      await runtime.close();
      unregister = registerLanguagePack(shellPack);
    }
  });
});
