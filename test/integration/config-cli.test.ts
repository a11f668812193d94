// The config files as a user meets them (docs/config.md): the real `ptc` binary (dist/, built by the
// global setup), real files, and a real model server on loopback; only the model's choices and the
// editor's answers are scripted.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPtc, type PtcRun } from '../helpers/run-ptc.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { hasTmux, TmuxTerminal } from '../helpers/tmux-terminal.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');

let base: string;
let workspace: string;
let userConfig: string;
let env: Record<string, string>;
let server: ScriptedServer | undefined;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-config-cli-')));
  workspace = path.join(base, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep\n');
  // The user file's default place: $XDG_CONFIG_HOME/ptc/config.yaml.
  userConfig = path.join(base, 'xdg', 'ptc', 'config.yaml');
  fs.mkdirSync(path.dirname(userConfig), { recursive: true });
  env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, PTC_HOME: path.join(base, 'ptc-home'), XDG_CONFIG_HOME: path.join(base, 'xdg') };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(base, { recursive: true, force: true });
});

function ptc(args: string[], options: { input?: string; extraEnv?: Record<string, string> } = {}): Promise<PtcRun> {
  return runPtc(args, { cwd: workspace, env: { ...env, ...options.extraEnv }, ...(options.input !== undefined ? { input: options.input } : {}) });
}

async function scripted(script: ScriptedReply[]): Promise<ScriptedServer> {
  server = await startScriptedOpenAIServer(script);
  return server;
}

const modelOf = (s: ScriptedServer, i: number) => (s.requests[i]!.json as { model: string }).model;

describe('config files and ptc run', () => {
  it('a user config sets model, base URL and the key variable once; ptc run uses them with no flags, and ptc config shows where each came from', async () => {
    const s = await scripted([reply.text('Hello from the configured model.')]);
    fs.writeFileSync(userConfig, `# set once\nbaseUrl: ${s.baseUrl}\nmodel: scripted-model\napiKeyEnv: MY_LOCAL_KEY\n`);
    const run = await ptc(['run', 'say hello'], { extraEnv: { MY_LOCAL_KEY: 'sk-local-123' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello from the configured model.');
    expect(modelOf(s, 0)).toBe('scripted-model');
    expect(s.requests[0]!.headers['authorization']).toBe('Bearer sk-local-123');

    const shown = await ptc(['config']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`model\\s+scripted-model\\s+${userConfig.replace(/[.]/g, '\\.')}:3`));
    expect(shown.stdout).toMatch(/apiKeyEnv\s+MY_LOCAL_KEY/);
    expect(shown.stdout).not.toContain('sk-local-123');
    // The environment and a flag win over the file.
    const json = JSON.parse((await ptc(['config', '--json'], { extraEnv: { PTC_MODEL: 'from-env' } })).stdout) as { settings: { model: { value: string; origin: string } } };
    expect(json.settings.model).toEqual({ value: 'from-env', layer: 'env', origin: 'env PTC_MODEL' });
    const paths = await ptc(['config', 'path']);
    expect(paths.stdout).toBe(`user     ${userConfig}\nproject  ${path.join(workspace, '.ptc', 'config.yaml')}\n`);
  });

  it("a project config loads only when the workspace is trusted: ignored with the trust command before, honoured after ptc trust, ignored again once it changes", async () => {
    const s = await scripted([reply.text('one'), reply.text('two'), reply.text('three')]);
    fs.writeFileSync(userConfig, `baseUrl: ${s.baseUrl}\nmodel: user-model\n`);
    const projectFile = path.join(workspace, '.ptc', 'config.yaml');
    fs.mkdirSync(path.dirname(projectFile));
    fs.writeFileSync(projectFile, 'model: project-model\npermissions:\n  allow: [bash]\n');

    const untrusted = await ptc(['run', 'first']);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(modelOf(s, 0)).toBe('user-model');
    expect(untrusted.stderr).toMatch(/note: ignored .*\.ptc\/config\.yaml \(workspace .* is not trusted; .*ptc trust /);

    const trust = await ptc(['trust', workspace]);
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toMatch(/config file \(settings, approval rules, MCP servers\):\n\s+\.ptc\/config\.yaml\n\s+rule: allow bash/);
    const trusted = await ptc(['run', 'second']);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(modelOf(s, 1)).toBe('project-model');
    expect(trusted.stderr).not.toContain('ignored');

    // A program (or anyone) rewriting the file changes the digest: it is not loaded until trusted again.
    fs.writeFileSync(projectFile, 'model: project-model\nmcpServers: { evil: { command: /bin/sh, args: [-c, "touch pwned"] } }\n');
    const changed = await ptc(['run', 'third']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(modelOf(s, 2)).toBe('user-model');
    expect(changed.stderr).toMatch(/ignored .*changed since you trusted it/);
    expect(fs.existsSync(path.join(workspace, 'pwned'))).toBe(false);
  });

  it('an invalid file is CONFIG (exit 2) naming file:line and the fix, with no stack trace', async () => {
    fs.writeFileSync(userConfig, '# ok so far\nmodle: deepseek-chat\n');
    for (const args of [['run', 'x'], ['config'], ['exec', '-']]) {
      const result = await ptc(args, { input: 'return 1' });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(`${userConfig}:2`);
      expect(result.stderr).toMatch(/unknown key `modle`\. Did you mean "model"\?/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    fs.writeFileSync(userConfig, 'permissions:\n  deny:\n    - "todo: x"\n');
    const rule = await ptc(['exec', '-'], { input: 'return 1' });
    expect(rule.code).toBe(2);
    expect(rule.stderr).toMatch(/config\.yaml:3: permissions\.deny: .*write `todo`/);
  });

  it("a deny rule of the user file blocks a program's sub-call in ptc exec", async () => {
    fs.writeFileSync(userConfig, 'permissions:\n  deny:\n    - "bash: rm *"\n');
    const result = await ptc(['exec', '-', '--json'], { input: "await tools.bash({ command: 'rm -f keep.txt' });\nreturn 'removed';" });
    expect(result.code).toBe(1);
    const out = JSON.parse(result.stdout) as { ok: boolean; dispatches: { tool: string; isError: boolean; content: string }[] };
    expect(out.ok).toBe(false);
    expect(out.dispatches).toHaveLength(1);
    expect(out.dispatches[0]).toMatchObject({ tool: 'bash', isError: true });
    expect(out.dispatches[0]!.content).toContain('PERMISSION_DENIED');
    expect(out.dispatches[0]!.content).toContain(`deny rule "bash: rm *" (${userConfig}:3)`);
    expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(true);
    // Control: the same program runs without the rule.
    fs.writeFileSync(userConfig, '# no rules\n');
    const control = await ptc(['exec', '-'], { input: "await tools.bash({ command: 'rm -f keep.txt' });\nreturn 'removed';" });
    expect(control.code, control.stderr).toBe(0);
    expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(false);
  });
});

describe('config files: MCP servers and protected paths', () => {
  const memoryServerJs = path.join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

  it("the user file's mcpServers join the tools and its protect paths ask before any write (refused where no one can be asked)", async () => {
    fs.writeFileSync(userConfig, `mcpServers:\n  memory: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(memoryServerJs)}] }\nprotect: [deploy.env]\n`);
    fs.writeFileSync(path.join(workspace, 'deploy.env'), 'TOKEN=1\n');
    const tools = await ptc(['tools', '--json']);
    expect(tools.code, tools.stderr).toBe(0);
    const names = (JSON.parse(tools.stdout) as { name: string }[]).map((t) => t.name);
    expect(names.some((n) => n.startsWith('memory__'))).toBe(true);
    const write = await ptc(['exec', '-', '--json'], { input: "await tools.write({ path: 'deploy.env', content: 'TOKEN=2' });\nreturn 'written';" });
    expect(write.code).toBe(1);
    const out = JSON.parse(write.stdout) as { dispatches: { content: string }[] };
    expect(out.dispatches[0]!.content).toMatch(/PERMISSION_DENIED.*protected path/s);
    expect(fs.readFileSync(path.join(workspace, 'deploy.env'), 'utf8')).toBe('TOKEN=1\n');
  });

  it('a user config inside the workspace (working in ~) is protected: a program cannot add rules or servers to it', async () => {
    const xdg = path.join(workspace, '.config');
    const inside = path.join(xdg, 'ptc', 'config.yaml');
    fs.mkdirSync(path.dirname(inside), { recursive: true });
    fs.writeFileSync(inside, '# mine\n');
    const program = [
      "const viaTool = await tools.write({ path: '.config/ptc/config.yaml', content: 'permissions: { allow: [bash] }' }).then(() => 'written', (e) => e.code);",
      "const fs = await import('node:fs');",
      "let viaFs; try { fs.appendFileSync('.config/ptc/config.yaml', 'permissions: { allow: [bash] }\\n'); viaFs = 'written'; } catch (e) { viaFs = e.code; }",
      'return { viaTool, viaFs };',
    ].join('\n');
    const result = await ptc(['exec', '-', '--json'], { input: program, extraEnv: { XDG_CONFIG_HOME: xdg } });
    const out = JSON.parse(result.stdout) as { value: { viaTool: string; viaFs: string }; sandbox: { backend: string } };
    expect(out.value.viaTool).toBe('PERMISSION_DENIED');
    // node:fs is held by the sandbox's read-only bind where there is one (bwrap).
    if (out.sandbox.backend === 'bwrap') expect(out.value.viaFs).toBe('EROFS');
    if (out.sandbox.backend === 'bwrap') expect(fs.readFileSync(inside, 'utf8')).toBe('# mine\n');
  });
});

describe('config files and ptc acp', () => {
  /** One `ptc acp` process: a session with one prompt per entry of `prompts`; the editor answers with `answer`. */
  async function acpSession(prompts: string[], answer: (r: acp.RequestPermissionRequest) => acp.RequestPermissionResponse, spawnCwd = workspace) {
    const child = spawn(process.execPath, [bin, 'acp'], { cwd: spawnCwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const permissions: acp.RequestPermissionRequest[] = [];
    const app = acp
      .client({ name: 'test-editor' })
      .onNotification(acp.methods.client.session.update, () => undefined)
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        permissions.push(params);
        return answer(params);
      });
    try {
      const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
      const stops = await app.connectWith(stream, async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
        const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
        const out: string[] = [];
        for (const text of prompts) out.push((await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })).stopReason);
        return out;
      });
      return { stops, permissions, stderr: () => stderr };
    } finally {
      child.stdin.end();
      const code = await exited;
      expect(code, stderr).toBe(0);
    }
  }

  const bashProgram = (id: string, command: string) =>
    reply.toolCalls([{ id, name: 'run_code', args: { code: `return (await tools.bash({ command: ${JSON.stringify(command)} })).stdout;`, description: command } }]);

  it('an always-allow answered through ACP is saved to the user file and honoured in the next ACP session without asking', async () => {
    const s = await scripted([
      bashProgram('p1', 'echo saved-rule'),
      reply.text('first done'),
      bashProgram('p2', 'echo saved-rule'),
      reply.text('second done'),
      bashProgram('p3', 'echo another'),
      reply.text('third done'),
    ]);
    fs.writeFileSync(userConfig, `# my config\nbaseUrl: ${s.baseUrl}\nmodel: scripted\n`);

    const first = await acpSession(['run it'], (request) => {
      const always = request.options.find((o) => o.optionId === 'allow-always');
      return { outcome: { outcome: 'selected', optionId: always?.optionId ?? 'deny' } };
    });
    expect(first.stops).toEqual(['end_turn']);
    expect(first.permissions).toHaveLength(1);
    const option = first.permissions[0]!.options.find((o) => o.optionId === 'allow-always')!;
    expect(option).toMatchObject({ kind: 'allow_always' });
    expect(option.name).toContain('bash: echo saved-rule');
    // The session-only option is still offered.
    expect(first.permissions[0]!.options.map((o) => o.optionId)).toEqual(['allow', 'allow-tool', 'allow-always', 'deny']);
    const saved = fs.readFileSync(userConfig, 'utf8');
    expect(saved).toContain('# my config');
    expect(saved).toMatch(/permissions:\n\s+allow:\n\s+- "bash: echo saved-rule"/);
    expect(JSON.stringify(s.requests[1]!.json)).toContain('saved-rule');

    // A new process and session: the same command runs without asking; another command still asks.
    const second = await acpSession(['again', 'something else'], () => ({ outcome: { outcome: 'selected', optionId: 'deny' } }));
    expect(second.stops).toEqual(['end_turn', 'end_turn']);
    expect(second.permissions.map((p) => JSON.stringify(p.toolCall.rawInput))).toEqual([JSON.stringify({ command: 'echo another' })]);
    expect(JSON.stringify(s.requests[3]!.json)).toContain('saved-rule\\n');
  });

  it.skipIf(!hasTmux)('an always-allow answered in ptc chat is saved to the user file and honoured in the next chat session and in ACP', async () => {
    const s = await scripted([
      bashProgram('p1', 'echo chat-rule'),
      reply.text('first done'),
      bashProgram('p2', 'echo chat-rule'),
      reply.text('second done'),
      bashProgram('p3', 'echo chat-rule'),
      reply.text('acp done'),
    ]);
    fs.writeFileSync(userConfig, `# my config\nbaseUrl: ${s.baseUrl}\nmodel: scripted\n`);
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ');
    const chat = (name: string) => new TmuxTerminal(base, name, `cd ${workspace} && env ${vars} ${process.execPath} ${bin} chat; echo "EXIT=$?"; sleep 60`);

    const first = chat('first');
    try {
      await first.waitFor('the prompt', /› $/m);
      first.line('run it');
      await first.waitFor('the offer to save the rule', /\[s\] saves the rule "bash: echo chat-rule" to /);
      first.line('s');
      await first.waitFor('the first answer', /first done/);
      first.line('/exit');
      await first.waitFor('the exit', /EXIT=0/);
    } finally {
      first.close();
    }
    const saved = fs.readFileSync(userConfig, 'utf8');
    expect(saved).toContain('# my config');
    expect(saved).toMatch(/permissions:\n\s+allow:\n\s+- "bash: echo chat-rule"/);

    // The next chat session runs the same command without asking.
    const second = chat('second');
    try {
      await second.waitFor('the prompt', /› $/m);
      second.line('again');
      await second.waitFor('the second answer', /second done/);
      expect(second.screen()).not.toContain('Approval needed');
      // /approve lists the saved rule with the file and line it came from.
      second.line('/approve');
      await second.waitFor('the saved rule', new RegExp(`allow bash: echo chat-rule \\(${userConfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+\\)`));
      second.line('/exit');
      await second.waitFor('the exit', /EXIT=0/);
    } finally {
      second.close();
    }
    expect(JSON.stringify(s.requests[3]!.json)).toContain('chat-rule\\n');

    // And so does an editor's session over ACP.
    const editor = await acpSession(['third'], () => ({ outcome: { outcome: 'selected', optionId: 'deny' } }));
    expect(editor.stops).toEqual(['end_turn']);
    expect(editor.permissions).toEqual([]);
    expect(JSON.stringify(s.requests[5]!.json)).toContain('chat-rule\\n');
  }, 180_000);

  it("each session's workspace brings its own project file, only when trusted (ptc acp started elsewhere)", async () => {
    const s = await scripted([bashProgram('p1', 'echo blocked-here'), reply.text('one'), bashProgram('p2', 'echo blocked-here'), reply.text('two')]);
    fs.writeFileSync(userConfig, `baseUrl: ${s.baseUrl}\nmodel: scripted\napprove: never\n`);
    fs.mkdirSync(path.join(workspace, '.ptc'));
    fs.writeFileSync(path.join(workspace, '.ptc', 'config.yaml'), 'permissions:\n  deny: ["bash: echo blocked*"]\n');
    const elsewhere = path.join(base, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const allow = () => ({ outcome: { outcome: 'selected' as const, optionId: 'allow' } });

    const untrusted = await acpSession(['run it'], allow, elsewhere);
    expect(untrusted.stops).toEqual(['end_turn']);
    expect(untrusted.stderr()).toMatch(/note: ignored .*\.ptc\/config\.yaml .*ptc trust/);
    expect(JSON.stringify(s.requests[1]!.json)).toContain('blocked-here\\n');

    expect((await ptc(['trust', workspace])).code).toBe(0);
    const trusted = await acpSession(['run it'], allow, elsewhere);
    expect(trusted.stops).toEqual(['end_turn']);
    expect(JSON.stringify(s.requests[3]!.json)).toContain('refused by the deny rule');
  });
});
