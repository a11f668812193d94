// The real `ptc` binary as a user runs it (dist/, built by the global setup like `npm ci` does).

import { spawn, spawnSync } from 'node:child_process';
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { compileTs } from '../helpers/compile-ts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-cli-'));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

function ptc(args: string[], options: { cwd?: string; input?: string } = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? workspace,
    encoding: 'utf8',
    input: options.input,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A loopback port that refuses: bound by us, then closed, so nothing listens there. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Why a `.invalid` name (RFC 6761) cannot be used here, or undefined when it fails to resolve
 * promptly as it should: a resolver that forwards it upstream and hangs would make the test slow.
 */
async function invalidHostProblem(): Promise<string | undefined> {
  const lookup = dns.promises.lookup('ptc-cli-test.invalid').then(
    () => 'ptc-cli-test.invalid resolved',
    (error: NodeJS.ErrnoException) => (error.code === 'ENOTFOUND' ? undefined : `lookup of a .invalid name failed with ${error.code}`),
  );
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('lookup of a .invalid name did not fail within 3 s'), 3000)));
  const problem = await Promise.race([lookup, slow]);
  clearTimeout(timer);
  return problem;
}
const invalidHost = await invalidHostProblem();
if (invalidHost !== undefined) console.log(`skipping the .invalid host case: ${invalidHost}`);

/** A user error must never show a stack trace. */
function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

/** The ```ts block of the SDK section (the whole text when there is no fence). */
function sdkDeclarations(text: string): string {
  const fenced = /```ts\n([\s\S]*?)```/.exec(text);
  return fenced ? fenced[1]! : text;
}

describe('ptc tools', () => {
  it('--json lists the visible tools with their schemas', () => {
    const { code, stdout, stderr } = ptc(['tools', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { name: string; inputSchema: unknown; executionMode: string }[];
    expect(tools.map((t) => t.name)).toEqual(['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'workflow_save', 'write']);
    expect(tools.find((t) => t.name === 'read')).toMatchObject({ executionMode: 'parallel', inputSchema: { type: 'object' } });
    expect(tools.find((t) => t.name === 'write')?.executionMode).toBe('exclusive');
  });

  it('prints a readable list without --json', () => {
    const { code, stdout } = ptc(['tools']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^read {2}\(parallel\)$/m);
    expect(stdout).toContain('- path: string, required');
  });
});

describe('ptc sdk', () => {
  it('prints an SDK that compiles', () => {
    const { code, stdout } = ptc(['sdk']);
    expect(code).toBe(0);
    expect(stdout).toContain('declare const tools');
    expect(compileTs({ 'sdk.d.ts': sdkDeclarations(stdout) }).diagnostics).toEqual([]);
  });
});

describe('usage errors exit 2 with a message, never a stack trace', () => {
  it.each([
    ['an unknown flag', ['tools', '--frobnicate']],
    ['an unknown command', ['frobnicate']],
    ['a bad --lang', ['sdk', '--lang', 'cobol']],
  ])('%s', (_label, args) => {
    const { code, stdout, stderr } = ptc(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.length).toBeGreaterThan(0);
    expectNoStack(stderr);
  });

  it.each([
    [['tols'], 'tools'],
    [['presets', 'lsit'], 'list'],
  ])('a mistyped command %j exits 2 suggesting %s', (args, meant) => {
    const { code, stdout, stderr } = ptc(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`unknown command '${args.at(-1)!}'`);
    expect(stderr).toContain(`Did you mean ${meant}?`);
    expectNoStack(stderr);
  });

  it('a mistyped preset exits 2 suggesting the nearest name', () => {
    const { code, stderr } = ptc(['tools', '--preset', 'minimla']);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown preset "minimla"');
    expect(stderr).toContain('Did you mean "minimal"?');
    expectNoStack(stderr);
  });

  it('a model server on a refusing port: exit 1 naming host:port, ECONNREFUSED and --base-url', async () => {
    const port = await closedPort();
    const { code, stderr } = ptc(['run', 'hi', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'local', '--session-dir', path.join(workspace, 'sessions')]);
    expect(code).toBe(1);
    expect(stderr).toContain(`127.0.0.1:${port}`);
    expect(stderr).toContain('ECONNREFUSED');
    expect(stderr).toContain('--base-url');
    expect(stderr).not.toContain('fetch failed');
    expectNoStack(stderr);
  });

  it.skipIf(invalidHost !== undefined)('a model server whose host does not resolve: exit 1 naming the host, DNS and --base-url', () => {
    const { code, stderr } = ptc(['run', 'hi', '--base-url', 'http://ptc-cli-test.invalid:8080/v1', '--model', 'local', '--session-dir', path.join(workspace, 'sessions')]);
    expect(code).toBe(1);
    expect(stderr).toContain('ptc-cli-test.invalid:8080');
    expect(stderr).toContain('ENOTFOUND');
    expect(stderr).toContain('DNS');
    expect(stderr).toContain('--base-url');
    expectNoStack(stderr);
  });

  it('a missing --cwd names the path and the fix', () => {
    const missing = path.join(workspace, 'nope');
    const { code, stderr } = ptc(['tools', '--cwd', missing]);
    expect(code).toBe(2);
    expect(stderr).toContain(missing);
    expect(stderr).toContain('existing directory');
    expectNoStack(stderr);
  });

  it('no command prints the usage and exits 2; --version prints the package version', () => {
    const bare = ptc([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Usage: ptc');
    const version = ptc(['--version']);
    expect(version.code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it('--help exits 0', () => {
    const { code, stdout } = ptc(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: ptc');
  });
});

describe('ptc exec', () => {
  const examples = path.join(root, 'examples');

  function exampleWorkspace(): string {
    const dir = fs.mkdtempSync(path.join(workspace, 'ex-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'README.md'), '# Demo\n');
    fs.writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 1; // TODO: rename\n// FIXME later\n');
    fs.writeFileSync(path.join(dir, 'src/b.js'), 'module.exports = 2;\n');
    return dir;
  }

  interface ExecJson {
    ok: boolean;
    value?: unknown;
    logs: string[];
    error: { code: string; message: string } | null;
    dispatches: { id: string; tool: string; args: unknown; isError: boolean; content: string }[];
    sandbox: { backend: string; enforced: { fs: string; network: string; process: string } };
  }

  it.each(fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.ts')))(
    'examples/%s runs and --json matches CONTRACT §3',
    (example) => {
      const cwd = exampleWorkspace();
      const { code, stdout, stderr } = ptc(['exec', path.join(examples, example), '--json', '--cwd', cwd]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const result = JSON.parse(stdout) as ExecJson;
      expect(Object.keys(result).sort()).toEqual(['dispatches', 'error', 'logs', 'ok', 'sandbox', 'value']);
      expect(result.ok).toBe(true);
      expect(result.error).toBeNull();
      expect(result.dispatches.length).toBeGreaterThan(0);
      for (const d of result.dispatches) {
        expect(d.id).toMatch(/^exec:ptc:\d+$/);
        expect(Object.keys(d).sort()).toEqual(['args', 'content', 'id', 'isError', 'tool']);
      }
      const numbers = result.dispatches.map((d) => Number(d.id.split(':')[2])).sort((a, b) => a - b);
      expect(numbers).toEqual(numbers.map((_n, i) => i + 1));
      expect(['bwrap', 'node-permission', 'none']).toContain(result.sandbox.backend);
    },
  );

  it('find-todos finds the TODO and FIXME lines: the value alone on stdout, the summary log on stderr', () => {
    const cwd = exampleWorkspace();
    const { code, stdout, stderr } = ptc(['exec', path.join(examples, 'find-todos.ts'), '--cwd', cwd]);
    expect(code).toBe(0);
    expect(stderr).toBe('2 TODO/FIXME lines in 1 files\n');
    // `ptc exec prog.ts | jq`: stdout parses as the value itself.
    expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ path: 'src/a.ts', count: 2 })]);
  });

  it('with logs present, stdout parses as the value (or, with --json, the one object) and the logs are on stderr', () => {
    const program = 'console.log("one"); console.error("two"); process.stdout.write("raw\\n"); return { n: 42, s: "x" };';
    const human = ptc(['exec', '-'], { input: program });
    expect(human.code).toBe(0);
    expect(JSON.parse(human.stdout)).toEqual({ n: 42, s: 'x' });
    expect(human.stderr).toBe('one\ntwo\nraw\n');
    const json = ptc(['exec', '-', '--json'], { input: program });
    expect(json.code).toBe(0);
    // --json keeps the logs in the object and stderr quiet: the object is the whole record.
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, value: { n: 42, s: 'x' }, logs: ['one', 'two', 'raw'] });
  });

  it('a program that returns nothing prints nothing on stdout; its logs still reach stderr', () => {
    const { code, stdout, stderr } = ptc(['exec', '-'], { input: 'console.log("only a log");' });
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toBe('only a log\n');
  });

  it('streams each log line to stderr while the program runs', async () => {
    // The program logs, then waits for a file that the test creates only once that log line has
    // reached it on stderr: if logs were held until the program ended, it would end by TIMEOUT.
    const dir = fs.mkdtempSync(path.join(workspace, 'stream-'));
    const program = [
      'console.log("first");',
      'const fs = await import("node:fs");',
      'while (!fs.existsSync("go")) await new Promise((r) => setTimeout(r, 20));',
      'console.log("second");',
      'return { done: true };',
    ].join('\n');
    const child = spawn(process.execPath, [bin, 'exec', '-', '--cwd', dir, '--timeout', '15000'], {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
    });
    let stdout = '';
    let stderr = '';
    let stdoutWhenFirstSeen: string | undefined;
    let exitedWhenFirstSeen: boolean | undefined;
    let exited = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stdoutWhenFirstSeen === undefined && stderr.includes('first\n')) {
        stdoutWhenFirstSeen = stdout;
        exitedWhenFirstSeen = exited;
        fs.writeFileSync(path.join(dir, 'go'), '');
      }
    });
    child.on('exit', () => (exited = true));
    child.stdin.end(program);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(exitedWhenFirstSeen).toBe(false);
    expect(stdoutWhenFirstSeen).toBe('');
    expect(stderr).toBe('first\nsecond\n');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ done: true });
  });

  it('the README\'s own-tools example: a preset file loading a TypeScript plugin with a zod tool, run by ptc exec', () => {
    const cwd = exampleWorkspace();
    const preset = path.join(examples, 'own-tools', 'units.yml');
    const { code, stdout, stderr } = ptc(['exec', '--preset', preset, path.join(examples, 'own-tools', 'marathon.ts'), '--json', '--cwd', cwd]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as ExecJson;
    expect(result.value).toBe('A marathon is 42.195 km (42195 m); a mile is 5280 ft.');
    // The third call left out `to`: zod applied the default before the tool ran.
    expect(result.dispatches.map((d) => d.args)).toEqual([
      { value: 26.2188, from: 'mi', to: 'km' },
      { value: 1, from: 'mi', to: 'ft' },
      { value: 42.195, from: 'km' },
    ]);
    const tools = ptc(['tools', '--preset', preset, '--json', '--cwd', cwd]);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('convert_length');
  });

  it('reads the program from stdin with -', () => {
    const { code, stdout } = ptc(['exec', '-', '--json'], { input: 'console.log("hi"); return 40 + 2;' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, value: 42, logs: ['hi'], dispatches: [] });
  });

  it('a failing program exits 1 with its code, the logs before it, and ok: false in JSON', () => {
    const program = 'console.log("before");\nthrow new TypeError("nope");';
    const human = ptc(['exec', '-'], { input: program });
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^before\nptc: EXCEPTION: TypeError: nope \(program\.ts:2:\d+\)/);
    expectNoStack(human.stderr);
    const json = ptc(['exec', '-', '--json'], { input: program });
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout) as ExecJson;
    expect(result).toMatchObject({ ok: false, logs: ['before'], error: { code: 'EXCEPTION' } });
    expect(result.error!.message).not.toContain('Logs before the failure');
  });

  it('a TypeScript enum is STRIP_FAILED with the fix in words', () => {
    const { code, stderr } = ptc(['exec', '-'], { input: 'enum Color { Red }\nreturn Color.Red;' });
    expect(code).toBe(1);
    expect(stderr).toContain('STRIP_FAILED');
    expect(stderr).toContain('const object');
  });

  it('--timeout ends a runaway program with TIMEOUT', () => {
    const { code, stdout } = ptc(['exec', '-', '--json', '--timeout', '300'], { input: 'while (true) {}' });
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('a missing program file is a usage error (exit 2)', () => {
    const { code, stderr } = ptc(['exec', path.join(workspace, 'missing.ts')]);
    expect(code).toBe(2);
    expect(stderr).toContain('does not exist');
    expectNoStack(stderr);
  });

  it('an unknown preset is a usage error naming the presets', () => {
    const { code, stderr } = ptc(['exec', '-', '--preset', 'turbo'], { input: 'return 1;' });
    expect(code).toBe(2);
    expect(stderr).toContain('ptc, standard');
  });

  it('--max-parallel must be a positive integer', () => {
    const { code, stderr } = ptc(['exec', '-', '--max-parallel', '0'], { input: 'return 1;' });
    expect(code).toBe(2);
    expectNoStack(stderr);
  });
});

describe('ptc run and ptc sessions against a scripted model server', () => {
  /** Runs the CLI without blocking this process's event loop (the model server lives here). */
  function ptcAsync(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], {
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('runs a ptc session, streams the answer, and the log can be listed and rebuilt', async () => {
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    fs.writeFileSync(path.join(workspace, 'note.txt'), 'remember the milk\n');
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([
        {
          id: 'rc',
          name: 'run_code',
          args: { code: "return (await tools.read({ path: 'note.txt' })).content.trim();", description: 'read the note' },
        },
      ]),
      reply.text('The note says: remember the milk.'),
    ]);
    try {
      const run = await ptcAsync(['run', 'What does note.txt say?', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(run.stderr).toMatch(/session \S+ \(/);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('The note says: remember the milk.\n');

      const json = await ptcAsync(['sessions', 'list', '--session-dir', sessions]);
      expect(json.code).toBe(0);
      expect(json.stdout).toContain('ptc');
      expect(json.stdout).toContain('completed');

      const id = fs.readdirSync(sessions)[0]!.replace(/\.jsonl$/, '');
      const request = await ptcAsync(['sessions', 'show', id, '--request', '2', '--session-dir', sessions]);
      expect(request.code).toBe(0);
      const rebuilt = JSON.parse(request.stdout) as { tools: string[]; messages: { role: string }[] };
      expect(rebuilt.tools).toEqual(['run_code']);
      expect(rebuilt.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(JSON.stringify(rebuilt.messages)).toContain('remember the milk');

      const missing = await ptcAsync(['sessions', 'show', 'nope', '--session-dir', sessions]);
      expect(missing.code).toBe(2);
      expectNoStack(missing.stderr);
    } finally {
      await server.close();
    }
  });

  it('--continue and --resume add turns to the same session; each request is the log rebuilt', async () => {
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    const server = await startScriptedOpenAIServer([reply.text('First.'), reply.text('Second.'), reply.text('Third.')]);
    try {
      const args = ['--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions];
      expect((await ptcAsync(['run', 'One.', ...args])).code).toBe(0);
      const second = await ptcAsync(['run', '--continue', 'Two.', ...args]);
      expect(second.code).toBe(0);
      expect(second.stdout).toBe('Second.\n');
      const files = fs.readdirSync(sessions).filter((f) => f.endsWith('.jsonl'));
      expect(files).toHaveLength(1);
      const id = files[0]!.replace(/\.jsonl$/, '');
      const third = await ptcAsync(['run', '--resume', id.slice(0, 10), 'Three.', ...args]);
      expect(third.code).toBe(0);
      expect(fs.readdirSync(sessions).filter((f) => f.endsWith('.jsonl'))).toEqual(files);

      // What the server received at step 3 is what `sessions show --request 3` rebuilds from the log.
      const sent = server.requests[2]!.json as { messages: { role: string; content: unknown }[] };
      expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
      expect(sent.messages.slice(1).map((m) => m.content)).toEqual(['One.', 'First.', 'Two.', 'Second.', 'Three.']);
      const rebuilt = await ptcAsync(['sessions', 'show', id, '--request', '3', '--session-dir', sessions]);
      const request = JSON.parse(rebuilt.stdout) as { system: string; messages: { role: string; content: unknown }[] };
      expect(request.system).toBe(sent.messages[0]!.content);
      expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(JSON.stringify(request.messages)).toContain('Second.');

      const both = await ptcAsync(['run', '--resume', id, '--continue', 'Four.', ...args]);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/either --resume <id> or --continue/);
      expectNoStack(both.stderr);
    } finally {
      await server.close();
    }
  });

  it('ptc run with the README\'s own-tools preset: the plugin\'s zod tool from a program, and natively with --plugin', async () => {
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    const ownTools = path.join(root, 'examples', 'own-tools');
    const server = await startScriptedOpenAIServer([
      reply.toolCalls([
        { id: 'rc', name: 'run_code', args: { code: "return await tools.convert_length({ value: 3, from: 'km', to: 'ft' });", description: 'convert' } },
      ]),
      reply.text('3 km is 9842.52 ft.'),
      // The second run: the same plugin appended to the native standard preset, the tool called directly.
      reply.toolCalls([{ id: 'n1', name: 'convert_length', args: { value: 3, from: 'km' } }]),
      reply.text('3000 m.'),
    ]);
    try {
      const viaProgram = await ptcAsync(['run', 'How many feet are 3 km?', '--preset', path.join(ownTools, 'units.yml'), '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(viaProgram.code).toBe(0);
      expect(viaProgram.stdout).toBe('3 km is 9842.52 ft.\n');
      const programResult = JSON.stringify(server.requests[1]!.json);
      expect(programResult).toContain('9842.52');

      const native = await ptcAsync(['run', 'How many metres are 3 km?', '--preset', 'standard', '--plugin', path.join(ownTools, 'units.ts'), '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(native.code).toBe(0);
      const nativeRequest = server.requests[2]!.json as { tools: { function: { name: string } }[] };
      expect(nativeRequest.tools.map((t) => t.function.name)).toContain('convert_length');
      // `to` was left out: the zod default (m) applied before the tool ran; precision is the plugin's default 2.
      const toolMessages = (server.requests[3]!.json as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool');
      expect(JSON.stringify(toolMessages)).toContain('3000');
    } finally {
      await server.close();
    }
  });

  it('--json prints the summary object', async () => {
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    const server = await startScriptedOpenAIServer([reply.text('Hello.')]);
    try {
      const run = await ptcAsync(['run', 'Say hello', '--json', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(summary).toMatchObject({ text: 'Hello.', steps: 1 });
      expect(Object.keys(summary)).toEqual(expect.arrayContaining(['sessionId', 'sessionFile', 'text', 'steps', 'usage']));
      expect(fs.existsSync(summary.sessionFile as string)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a missing API key exits 2 naming the variable and the alternatives', async () => {
    const run = await ptcAsync(['run', 'hi', '--model', 'deepseek:deepseek-chat']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DEEPSEEK_API_KEY');
    expect(run.stderr).toContain('--base-url');
    expectNoStack(run.stderr);
  });

  it('a 401 from the provider exits 1 with a clear message and a closed log', async () => {
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    const server = await startScriptedOpenAIServer([reply.error(401)]);
    try {
      const run = await ptcAsync(['run', 'hi', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('401');
      expectNoStack(run.stderr);
      const file = path.join(sessions, fs.readdirSync(sessions)[0]!);
      const last = JSON.parse(fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)!) as { type: string; reason: string };
      expect(last).toMatchObject({ type: 'session/end', reason: 'error' });
    } finally {
      await server.close();
    }
  });
});
