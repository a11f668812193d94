// Skills through the real harness and agent loop (docs/skills.md): a skill folder in another agent's
// layout, copied unchanged, is listed in the system prompt the scripted model server receives (name
// and description only) and its body reaches the model only after it calls `skill`; workspace skills
// load only once the workspace is trusted; `read` reaches the files of loaded skills and nothing
// else outside the workspace; `ptc skills list` says which file wins.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAgent } from '../../src/agent/loop.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter } from '../../src/session/index.js';
import { checkWorkspaceTrust } from '../../src/trust/workspace-trust.js';
import { recordTrust } from '../../src/trust/trust-store.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

const run = promisify(execFile);
const CLI = path.resolve('src/cli/main.ts');

let root: string;
let workspace: string;
let env: Record<string, string>;
let server: ScriptedServer | undefined;
let harness: Harness | undefined;

// A skill as another agent keeps it: `.claude/skills/<name>/SKILL.md` with a script beside it.
const PDF_SKILL = [
  '---',
  'name: pdf-forms',
  'description: Fill in PDF forms from a JSON file of field values. Use when the user asks to fill a PDF form.',
  'license: Apache-2.0',
  'allowed-tools: Bash(python3:*) Read',
  'metadata:',
  '  author: someone',
  '  version: "1.2"',
  '---',
  '',
  '# Filling PDF forms',
  '',
  'Run `scripts/fill.sh <form.pdf> <values.json>`. Body marker: 4c1e-pdf-body.',
  '',
].join('\n');

function writeSkill(dir: string, text: string, extra: Record<string, string> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
  for (const [name, content] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return path.join(dir, 'SKILL.md');
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-skills-')));
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.mkdirSync(path.join(root, 'home'));
  env = { HOME: path.join(root, 'home'), XDG_CONFIG_HOME: path.join(root, 'config'), PTC_HOME: path.join(root, 'ptc-home'), PATH: process.env['PATH'] ?? '' };
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

async function agent(preset: 'standard' | 'ptc', script: ScriptedReply[]) {
  server = await startScriptedOpenAIServer(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto', env });
  const writer = createSessionWriter({ dir: path.join(root, 'sessions') });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    task: 'Fill the form.',
    sink: writer,
    sessionId: writer.sessionId,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  writer.close();
  return result;
}

function requestText(index: number): { system: string; all: string } {
  const body = server!.requests[index]!.json as { messages: { role: string; content: unknown }[] };
  return { system: String(body.messages.find((m) => m.role === 'system')!.content), all: JSON.stringify(body.messages) };
}

function userConfig(text: string): void {
  fs.mkdirSync(path.join(root, 'config', 'ptc'), { recursive: true });
  fs.writeFileSync(path.join(root, 'config', 'ptc', 'config.yaml'), text);
}

describe('skills in the agent', () => {
  it('a ~/.claude/skills folder copied unchanged is listed by description, and its body is sent only after the model calls skill', async () => {
    const skillDir = path.join(root, 'home', '.claude', 'skills', 'pdf-forms');
    writeSkill(skillDir, PDF_SKILL, { 'scripts/fill.sh': '#!/bin/sh\necho filled "$1"\n' });
    userConfig('skills:\n  claude: true\n');
    const result = await agent('standard', [reply.toolCall('skill', { name: 'pdf-forms' }, 's1'), reply.text('Done.')]);
    expect(result.reason).toBe('completed');
    const first = requestText(0);
    expect(first.system).toContain('- pdf-forms: Fill in PDF forms from a JSON file of field values.');
    expect(first.all).not.toContain('4c1e-pdf-body');
    const tools = (server!.requests[0]!.json as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(tools).toContain('skill');
    const second = requestText(1);
    expect(second.all).toContain('4c1e-pdf-body');
    // The files beside it, with absolute paths.
    expect(second.all).toContain(JSON.stringify(path.join(skillDir, 'scripts', 'fill.sh')).slice(1, -1));
  });

  it('without `claude: true` the .claude folder is not read', async () => {
    writeSkill(path.join(root, 'home', '.claude', 'skills', 'pdf-forms'), PDF_SKILL);
    await agent('standard', [reply.text('Done.')]);
    expect(requestText(0).system).not.toContain('pdf-forms');
  });

  it('ptc mode: tools.skill loads the body inside a program', async () => {
    writeSkill(path.join(root, 'config', 'ptc', 'skills', 'pdf-forms'), PDF_SKILL);
    const code = "const s = await tools.skill({ name: 'pdf-forms' }); return s.body.includes('4c1e-pdf-body') ? 'has-body' : 'no-body';";
    const result = await agent('ptc', [reply.toolCall('run_code', { code, description: 'load skill' }, 'p1'), reply.text('Done.')]);
    expect(result.reason).toBe('completed');
    expect(requestText(0).system).toContain('- pdf-forms: ');
    expect(requestText(0).all).not.toContain('4c1e-pdf-body');
    expect(requestText(1).all).toContain('has-body');
  });

  it('a workspace skill loads only after the workspace is trusted, and overrides the user skill of the same name', async () => {
    const userFile = writeSkill(path.join(root, 'config', 'ptc', 'skills', 'pdf-forms'), PDF_SKILL);
    writeSkill(path.join(workspace, '.ptc', 'skills', 'pdf-forms'), PDF_SKILL.replace('Fill in PDF forms', 'Workspace way to fill PDF forms'));
    await agent('standard', [reply.text('Done.')]);
    expect(requestText(0).system).toContain('- pdf-forms: Fill in PDF forms');
    expect(requestText(0).system).not.toContain('Workspace way');
    await harness!.dispose();
    harness = undefined;
    await server!.close();

    const trust = checkWorkspaceTrust(workspace, { env });
    expect(trust.state).toBe('untrusted');
    expect(trust.config.skills).toEqual([path.join(workspace, '.ptc', 'skills', 'pdf-forms', 'SKILL.md')]);
    recordTrust(env['PTC_HOME']!, trust.config.workspace, trust.config.digest);
    await agent('standard', [reply.text('Done.')]);
    expect(requestText(0).system).toContain('- pdf-forms: Workspace way to fill PDF forms');

    // A program (or anyone) changing a workspace skill asks for trust again.
    fs.writeFileSync(path.join(workspace, '.ptc', 'skills', 'pdf-forms', 'notes.md'), 'new file\n');
    expect(checkWorkspaceTrust(workspace, { env }).state).toBe('changed');

    const { stdout } = await run(process.execPath, ['--import', './scripts/ts-register.mjs', CLI, 'skills', 'list', '--cwd', workspace], { env });
    expect(stdout).toContain(`pdf-forms  (user)  ${userFile}`);
  });

  it('a workspace .claude/skills folder copied unchanged (with its script) loads with `claude: true` only after trust', async () => {
    const skillDir = path.join(workspace, '.claude', 'skills', 'pdf-forms');
    writeSkill(skillDir, PDF_SKILL, { 'scripts/fill.sh': '#!/bin/sh\necho filled "$1"\n' });
    userConfig('skills:\n  claude: true\n');
    await agent('standard', [reply.text('Done.')]);
    expect(requestText(0).system).not.toContain('pdf-forms');
    await harness!.dispose();
    harness = undefined;
    await server!.close();

    const trust = checkWorkspaceTrust(workspace, { env });
    expect(trust.config.files).toContain(path.join(skillDir, 'scripts', 'fill.sh'));
    recordTrust(env['PTC_HOME']!, trust.config.workspace, trust.config.digest);
    await agent('standard', [reply.toolCall('skill', { name: 'pdf-forms' }, 's1'), reply.text('Done.')]);
    expect(requestText(0).system).toContain('- pdf-forms: Fill in PDF forms');
    expect(requestText(0).all).not.toContain('4c1e-pdf-body');
    expect(requestText(1).all).toContain('4c1e-pdf-body');
    expect(requestText(1).all).toContain(JSON.stringify(path.join(skillDir, 'scripts', 'fill.sh')).slice(1, -1));
  });

  it('read reaches a file beside a loaded user skill, not other files outside the workspace', async () => {
    const skillDir = path.join(root, 'config', 'ptc', 'skills', 'pdf-forms');
    writeSkill(skillDir, PDF_SKILL, { 'reference.md': 'reference marker 9d2b\n' });
    fs.writeFileSync(path.join(root, 'config', 'ptc', 'secret.txt'), 'not for the model\n');
    harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', env });
    const ok = await harness.tools.execute('read', { path: path.join(skillDir, 'reference.md') });
    expect(ok.isError).toBe(false);
    expect(ok.content).toContain('reference marker 9d2b');
    const refused = await harness.tools.execute('read', { path: path.join(root, 'config', 'ptc', 'secret.txt') });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('PERMISSION_DENIED');
    const body = await harness.tools.execute('skill', { name: 'nope' });
    expect(body.isError).toBe(true);
    expect(body.content).toMatch(/No skill named "nope".*pdf-forms/s);
  });

  it('malformed front matter is a CONFIG warning with file:line on stderr of ptc skills list; the other skills still list', async () => {
    const skills = path.join(root, 'config', 'ptc', 'skills');
    writeSkill(path.join(skills, 'pdf-forms'), PDF_SKILL);
    const bad = writeSkill(path.join(skills, 'broken'), '---\nname: broken\ndescription: [oops\n---\nbody\n');
    const { stdout, stderr } = await run(process.execPath, ['--import', './scripts/ts-register.mjs', CLI, 'skills', 'list', '--cwd', workspace], { env });
    expect(stdout).toContain('pdf-forms  (user)');
    expect(stdout).toContain('writing-ptc-programs  (shipped)');
    expect(stderr).toMatch(new RegExp(`CONFIG ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: front matter is not valid YAML`));
    const show = await run(process.execPath, ['--import', './scripts/ts-register.mjs', CLI, 'skills', 'show', 'pdf-forms', '--cwd', workspace], { env });
    expect(show.stdout).toContain('4c1e-pdf-body');
  });
});
