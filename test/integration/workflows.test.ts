// Workflows through the real harness, agent loop, approvals, runtimes and CLI (docs/workflows.md): a
// program saved with workflow_save (asked through the real approval path, also under `--approve
// never`; a denied save writes nothing) is, in later sessions, a native tool of the standard preset,
// `tools.workflow_<name>` in a program, and reachable over the real `ptc mcp serve`, with its
// sub-calls in the session log under the caller's id. Only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAgent } from '../../src/agent/loop.js';
import { installApprovals, type ApprovalAnswer, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import type { SessionEvent } from '../../src/session/events.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { recordTrust } from '../../src/trust/trust-store.js';
import { checkWorkspaceTrust } from '../../src/trust/workspace-trust.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { PTC_BIN, runPtc } from '../helpers/run-ptc.js';

let root: string;
let workspace: string;
let env: Record<string, string>;
let server: ScriptedServer | undefined;
let harness: Harness | undefined;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-workflows-')));
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
  fs.mkdirSync(path.join(root, 'home'));
  env = { HOME: path.join(root, 'home'), XDG_CONFIG_HOME: path.join(root, 'config'), PTC_HOME: path.join(root, 'ptc-home'), PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

const userDir = () => path.join(root, 'config', 'ptc', 'workflows');

function writeWorkflow(dir: string, file: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  return path.join(dir, file);
}

const COUNT_TEXT = {
  name: 'count_text',
  description: 'Count the files matching a glob pattern in the workspace.',
  input: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'], additionalProperties: false },
  code: 'const found = await tools.glob({ pattern: input.pattern });\nreturn { files: found.files, count: found.files.length };',
};

/** A person who gives each request the next answer and remembers what was asked. */
function person(answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    return answers.shift() ?? { decision: 'deny', reason: 'no more answers scripted' };
  };
  return { asked, approver };
}

async function session(preset: 'standard' | 'ptc' | 'creator', script: ScriptedReply[], approver?: ReturnType<typeof person>['approver']) {
  server = await startScriptedOpenAIServer(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto', env });
  // `never`: the most permissive policy; workflow_save still asks.
  const remove = approver ? installApprovals(harness.ctx, { policy: 'never', approver }) : undefined;
  const writer = createSessionWriter({ dir: path.join(root, 'sessions') });
  try {
    const result = await runAgent({
      scope: harness.ctx,
      cwd: workspace,
      preset,
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      task: 'Count the text files.',
      sink: writer,
      sessionId: writer.sessionId,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    writer.close();
    return { result, events: readSession(writer.file).events };
  } finally {
    await remove?.();
    await harness.dispose();
    harness = undefined;
    await server.close();
    server = undefined;
  }
}

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;
const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) => events.filter((e): e is Ev<T> => e.type === type);

function trust(): void {
  const state = checkWorkspaceTrust(workspace, { env });
  recordTrust(env['PTC_HOME']!, state.config.workspace, state.config.digest);
}

async function mcpRunCode(code: string): Promise<CallToolResult> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [PTC_BIN, 'mcp', 'serve', '--cwd', workspace], env, stderr: 'pipe' });
  const client = new Client({ name: 'workflows-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['run_code']);
    // The served SDK declares the workflow with its input type.
    expect(listed.tools[0]!.description).toContain('workflow_count_text');
    return (await client.callTool({ name: 'run_code', arguments: { code, description: 'call the workflow' } })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe('a workflow saved with workflow_save', () => {
  it('is asked even under --approve never, written, and in later sessions called natively, from a program and over mcp serve, its sub-calls logged under the caller', async () => {
    const { asked, approver } = person([{ decision: 'allow' }]);
    // A ptc session: the program works (with its input written inline), then the model saves it.
    const saved = await session(
      'ptc',
      [
        reply.toolCall('run_code', { code: `const input = { pattern: '*.txt' };\n${COUNT_TEXT.code}`, description: 'count' }, 'r1'),
        reply.toolCall('run_code', { code: `return await tools.workflow_save(${JSON.stringify(COUNT_TEXT)});`, description: 'save it' }, 's1'),
        reply.text('Saved.'),
      ],
      approver,
    );
    expect(saved.result.reason).toBe('completed');
    expect(ofType(saved.events, 'tool/result').find((e) => e.id === 'r1')!.content).toContain('"count": 2');
    const file = path.join(workspace, '.ptc', 'workflows', 'count_text.ts');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ id: 's1:ptc:1', tool: 'workflow_save', parent: { id: 's1' }, args: { file, code: expect.stringContaining('// name: count_text') } });
    expect(asked[0]!.why).toContain('protected path');
    const saveResult = ofType(saved.events, 'tool/result').find((e) => e.id === 's1')!;
    expect(saveResult.isError, saveResult.content).toBe(false);
    expect(saveResult.content).toContain('ptc trust');
    expect(fs.readFileSync(file, 'utf8')).toContain('return { files: found.files, count: found.files.length };');

    // Saving changed the workspace's configuration: not loaded until the user trusts it again.
    expect(checkWorkspaceTrust(workspace, { env }).state).not.toBe('trusted');
    trust();

    // A later session of the standard preset: a native tool.
    const native = await session('standard', [reply.toolCall('workflow_count_text', { pattern: '*.txt' }, 'w1'), reply.text('Two.')]);
    expect(ofType(native.events, 'llm/request')[0]!.tools).toContain('workflow_count_text');
    const nativeResult = ofType(native.events, 'tool/result').find((e) => e.id === 'w1')!;
    expect(nativeResult).toMatchObject({ name: 'workflow_count_text', isError: false });
    expect(JSON.parse(nativeResult.content)).toEqual({ files: ['a.txt', 'b.txt'], count: 2 });
    expect(ofType(native.events, 'tool/ptc-dispatch')).toEqual([
      expect.objectContaining({ parentId: 'w1', id: 'w1:ptc:1', tool: 'glob', args: { pattern: '*.txt' }, isError: false }),
    ]);
    expect(ofType(native.events, 'tool/ptc-dispatch-start').map((e) => e.id)).toEqual(['w1:ptc:1']);

    // From a program: tools.workflow_count_text, whose own sub-call is logged under the program's sub-call id.
    const code = "const r = await tools.workflow_count_text({ pattern: '*.txt' });\nreturn r.count;";
    const program = await session('ptc', [reply.toolCall('run_code', { code, description: 'count' }, 'p1'), reply.text('Two.')]);
    const programResult = ofType(program.events, 'tool/result').find((e) => e.id === 'p1')!;
    expect(programResult.isError).toBe(false);
    expect(programResult.content.trim()).toBe('2');
    expect(ofType(program.events, 'tool/ptc-dispatch').map((e) => [e.parentId, e.id, e.tool])).toEqual([
      ['p1:ptc:1', 'p1:ptc:1:ptc:1', 'glob'],
      ['p1', 'p1:ptc:1', 'workflow_count_text'],
    ]);

    // Over the real `ptc mcp serve`: a program calls it; only its return value comes back.
    const served = await mcpRunCode("return await tools.workflow_count_text({ pattern: '*.txt' });");
    expect(served.isError).toBeFalsy();
    const structured = served.structuredContent as { value: unknown; dispatches: { id: string; tool: string }[] };
    expect(structured.value).toEqual({ files: ['a.txt', 'b.txt'], count: 2 });
    expect(structured.dispatches.map((d) => d.tool)).toEqual(['workflow_count_text']);
  });

  it('a denied save writes nothing, and with no one to ask it is refused', async () => {
    const { asked, approver } = person([{ decision: 'deny', reason: 'not now' }]);
    const denied = await session('creator', [reply.toolCall('workflow_save', COUNT_TEXT, 's1'), reply.text('OK.')], approver);
    expect(asked).toHaveLength(1);
    const result = ofType(denied.events, 'tool/result').find((e) => e.id === 's1')!;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/PERMISSION_DENIED.*denied by the user: not now.*Nothing was written/s);
    expect(fs.existsSync(path.join(workspace, '.ptc'))).toBe(false);

    const unattended = await session('creator', [reply.toolCall('workflow_save', { ...COUNT_TEXT, scope: 'user' }, 's2'), reply.text('OK.')]);
    const refused = ofType(unattended.events, 'tool/result').find((e) => e.id === 's2')!;
    expect(refused.content).toMatch(/PERMISSION_DENIED.*no one can be asked.*ptc chat/s);
    expect(fs.existsSync(userDir())).toBe(false);
  });

  it('bad arguments are INVALID_ARGS naming the cause and the fix, before anyone is asked', async () => {
    // The creator preset has workflow_save natively (the standard preset loads workflows but does not save them).
    harness = await createHarness({ cwd: workspace, preset: 'creator', sandbox: 'auto', env });
    const { asked, approver } = person([]);
    installApprovals(harness.ctx, { policy: 'never', approver });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Count-Text' }, /name "Count-Text" must start with a lowercase letter.*underscores/s],
      [{ input: { type: 'string' } }, /input must have `type: object`/],
      [{ input: { type: 'object', properties: { pattern: { type: 'strng' } } } }, /not a valid JSON Schema.*Fix the input schema/s],
      [{ code: 'const x = ;\nreturn x;' }, /does not compile: code line 1: invalid syntax.*Fix the code/s],
      [{ code: 'await tools.glob({ pattern: "*" });\nreturn await tools.grpe({ pattern: "x" });' }, /code line 2: the program calls tools\.grpe.*grep/s],
      [{ language: 'python', code: 'found = await tools.glob({"pattern": "*"})\nreturn found[' }, /does not compile: code line 2: invalid syntax.*Fix the code/s],
      [{ language: 'python', code: 'return await tools.globb({"pattern": "*"})' }, /code line 1: the program calls tools\.globb.*glob/s],
    ];
    for (const [change, pattern] of cases) {
      const result = await harness.tools.execute('workflow_save', { ...COUNT_TEXT, ...change });
      expect(result.error?.code, JSON.stringify(change)).toBe('INVALID_ARGS');
      expect(result.content).toMatch(pattern);
    }
    expect(asked).toHaveLength(0);
    expect(fs.existsSync(path.join(workspace, '.ptc'))).toBe(false);
  });
});

describe('loaded workflows', () => {
  const GOOD = writeText('good', 'Lists the text files.', "return (await tools.glob({ pattern: input.pattern ?? '*.txt' })).files;");

  function writeText(name: string, description: string, body: string): string {
    return `// ---\n// name: ${name}\n// description: ${description}\n// input:\n//   type: object\n//   properties:\n//     pattern: { type: string }\n// ---\n${body}\n`;
  }

  it('input that breaks the schema is INVALID_ARGS and the program does not run', async () => {
    writeWorkflow(userDir(), 'good.ts', GOOD);
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    const dispatched: string[] = [];
    harness.ctx.on('tool/ptc-dispatch-start', (e) => void dispatched.push(e.id));
    const bad = await harness.tools.execute('workflow_good', { pattern: 7 });
    expect(bad.error?.code).toBe('INVALID_ARGS');
    expect(bad.content).toMatch(/\/pattern: .*string/);
    expect(dispatched).toEqual([]);
    const ok = await harness.tools.execute('workflow_good', { pattern: 'a.*' });
    expect(ok.value).toEqual(['a.txt']);
  });

  it('a program that throws is EXCEPTION naming the file and its own line, with the logs before it', async () => {
    const file = writeWorkflow(userDir(), 'boom.ts', writeText('boom', 'Throws.', "console.log('before');\nthrow new Error('boom here');"));
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    const failed = await harness.tools.execute('workflow_boom', {});
    expect(failed.error?.code).toBe('EXCEPTION');
    expect(failed.content).toContain(`boom here (${file}:10:`);
    expect(failed.content).toMatch(/Logs before the failure:\nbefore/);
  });

  it('a broken workflow is reported with file:line and not registered; the others are', async () => {
    writeWorkflow(userDir(), 'good.ts', GOOD);
    const syntax = writeWorkflow(userDir(), 'syntax.ts', writeText('syntax', 'Broken.', 'const x = 1;\nreturn x +;'));
    const unknown = writeWorkflow(userDir(), 'gone.ts', writeText('gone', 'Calls a tool that is gone.', 'return await tools.old_search({ q: 1 });'));
    const header = writeWorkflow(userDir(), 'header.py', '# ---\n# name: header\n# description: [oops\n# ---\nreturn 1\n');
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    const names = harness.preset.tools.filter((t) => t.startsWith('workflow_'));
    expect(names).toEqual(['workflow_good']);
    const report = harness.ctx.get('workflows')!.report();
    expect(report.broken.map((b) => [b.file, b.problem.line])).toEqual(
      expect.arrayContaining([
        [syntax, 10],
        [unknown, 9],
        [header, 3],
      ]),
    );
    await harness.dispose();
    harness = undefined;

    const listed = await runPtc(['workflows', 'list', '--cwd', workspace], { cwd: workspace, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`good  typescript  (user)  ${path.join(userDir(), 'good.ts')}  registered as workflow_good`);
    expect(listed.stdout).toContain(`CONFIG ${syntax}:10: invalid syntax`);
    expect(listed.stdout).toMatch(new RegExp(`CONFIG ${unknown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:9: calls tools\\.old_search, which is not a tool of this preset`));
    expect(listed.stdout).toContain(`header  python  (user)  ${header}  NOT registered`);
  });

  it("an untrusted workspace's workflows are not loaded; once trusted they are", async () => {
    writeWorkflow(path.join(workspace, '.ptc', 'workflows'), 'good.ts', GOOD);
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    expect(harness.preset.tools).not.toContain('workflow_good');
    await harness.dispose();
    harness = undefined;
    const listed = await runPtc(['workflows', 'list'], { cwd: workspace, env });
    expect(listed.stdout).toContain('No workflows found.');
    expect(listed.stderr).toMatch(/not loaded: it is not trusted.*ptc trust/s);

    expect(checkWorkspaceTrust(workspace, { env }).config.workflows).toEqual([path.join(workspace, '.ptc', 'workflows', 'good.ts')]);
    trust();
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    expect(harness.preset.tools).toContain('workflow_good');
    await harness.dispose();
    harness = undefined;

    // A file added later (a program, a git pull) untrusts the folder again: none of it loads.
    writeWorkflow(path.join(workspace, '.ptc', 'workflows'), 'extra.ts', writeText('extra', 'Added later.', 'return 1;'));
    expect(checkWorkspaceTrust(workspace, { env }).state).toBe('changed');
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    expect(harness.preset.tools.filter((t) => t.startsWith('workflow_'))).toEqual([]);
  });

  it('a Python workflow runs with its input bound and the same tools', async () => {
    const py = [
      '# ---',
      '# name: py_files',
      '# description: The text files, from Python.',
      '# input: { type: object, properties: { pattern: { type: string } }, required: [pattern] }',
      '# ---',
      'found = await tools.glob({"pattern": "*.txt"})',
      'return {"n": len(found["files"]), "first": found["files"][0], "echo": input["pattern"]}',
      '',
    ].join('\n');
    writeWorkflow(userDir(), 'py_files.py', py);
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    const report = harness.ctx.get('workflows')!.report();
    if (report.broken.some((b) => /python3/.test(b.problem.message))) {
      console.warn(`Skipping the Python workflow run: ${report.broken[0]!.problem.message}`);
      return;
    }
    // Quotes, a newline and Python code in the input stay a value.
    const pattern = '"); import os; os._exit(3) #\n\\u00e9 \u00e9 \u2028';
    const result = await harness.tools.execute('workflow_py_files', { pattern }, { id: 'py1' });
    expect(result.isError, result.content).toBe(false);
    expect(result.value).toEqual({ n: 2, first: 'a.txt', echo: pattern });
  });

  it('ptc workflows show and run on the built CLI', async () => {
    const file = writeWorkflow(userDir(), 'good.ts', GOOD);
    const shown = await runPtc(['workflows', 'show', 'good'], { cwd: workspace, env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`file         ${file}  (user)`);
    expect(shown.stdout).toContain('status       registered');
    expect(shown.stdout).toContain("return (await tools.glob({ pattern: input.pattern ?? '*.txt' })).files;");

    const ran = await runPtc(['workflows', 'run', 'good', '--input', '{"pattern":"b.*"}'], { cwd: workspace, env });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual(['b.txt']);

    const badJson = await runPtc(['workflows', 'run', 'good', '--input', '{pattern'], { cwd: workspace, env });
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--input is not JSON.*pass an object/s);
    const badInput = await runPtc(['workflows', 'run', 'good', '--input', '{"pattern":1}'], { cwd: workspace, env });
    expect(badInput.code).toBe(2);
    expect(badInput.stderr).toMatch(/\/pattern: .*string.*Fix these arguments/s);
    const missing = await runPtc(['workflows', 'show', 'nope'], { cwd: workspace, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No workflow named "nope".*ptc workflows list/s);
  });
});
