// The `mcp` row against real MCP servers: the official memory, filesystem and everything servers
// (devDependencies, started with this Node), over stdio and streamable HTTP on loopback. Programs
// run through run_code as `ptc exec` runs them; the CLI is the built binary.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../src/harness.js';
import type { JsonValue } from '../../src/json.js';
import { renderSdkSection } from '../../src/ptc/prompt-sections.js';
import type { RunCodeValue } from '../../src/ptc/run-code.js';
import { RUN_CODE_TOOL_NAME } from '../../src/tools/tool-runtime.js';
import { reply, startScriptedOpenAIServer } from '../fixtures/scripted-openai-server.js';
import { compileTs } from '../helpers/compile-ts.js';
import { waitUntil } from '../helpers/wait-until.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
const serverJs = (name: string) => path.join(root, 'node_modules/@modelcontextprotocol', `server-${name}`, 'dist/index.js');
const listChangedServer = path.join(root, 'test/fixtures/mcp-list-changed-server.mjs');

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-mcp-client-')));
const shared = path.join(workspace, 'shared');
fs.mkdirSync(shared);
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

const memory = (file = 'memory.jsonl') => ({ command: process.execPath, args: [serverJs('memory')], env: { MEMORY_FILE_PATH: path.join(workspace, file) } });
const files = { command: process.execPath, args: [serverJs('filesystem'), shared] };

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.dispose()));
});

async function harnessWith(mcpServers: Record<string, unknown>): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'minimal', plugins: [{ name: 'mcp', config: { mcpServers }, at: 'test' }] });
  open.push(harness);
  return harness;
}

/** Runs a program body through run_code, as `ptc exec` does. */
async function runProgram(harness: Harness, code: string): Promise<{ ok: boolean; value?: JsonValue; content: string }> {
  const scope = await harness.ptcScope();
  const outcome = await harness.tools.execute(RUN_CODE_TOOL_NAME, { code, description: 'test' }, { id: 'exec', scope });
  const value = (outcome.value as RunCodeValue | undefined)?.result;
  return { ok: !outcome.isError, ...(value !== undefined ? { value } : {}), content: outcome.content };
}

function ptc(args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function writeConfig(name: string, mcpServers: Record<string, unknown>): string {
  const file = path.join(workspace, name);
  fs.writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

describe('mcp row: two servers in one program', () => {
  it('composes the memory and filesystem servers through their <server>__<tool> names', async () => {
    // The filesystem server's readOnlyHint is believed only because the config says so (docs/mcp.md, "Trust").
    const harness = await harnessWith({ memory: memory(), files: { ...files, readOnlyHintTrusted: true } });
    const names = harness.tools.schemas().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['memory__create_entities', 'memory__read_graph', 'files__write_file', 'files__read_text_file']));
    // The servers send draft-07 schemas; the registry takes them as they are.
    expect(harness.tools.get('memory__read_graph')?.inputSchema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#' });
    // readOnlyHint: true of a trusted server -> overlaps in the pool; everything else is exclusive.
    expect(harness.tools.executionMode('files__read_text_file', { parent: { id: 'p', name: RUN_CODE_TOOL_NAME } })).toBe('parallel');
    expect(harness.tools.executionMode('files__write_file', { parent: { id: 'p', name: RUN_CODE_TOOL_NAME } })).toBe('exclusive');

    const target = path.join(shared, 'people.json');
    const run = await runProgram(
      harness,
      `await tools.memory__create_entities({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] });
       const graph = await tools.memory__read_graph({});
       const names = graph.entities.map((e) => e.name);
       const written = await tools.files__write_file({ path: ${JSON.stringify(target)}, content: JSON.stringify(names) });
       const back = await tools.files__read_text_file({ path: ${JSON.stringify(target)} });
       return { names, written: typeof written, back: JSON.parse(back.content) };`,
    );
    expect(run.content).not.toContain('Error');
    expect(run).toMatchObject({ ok: true, value: { names: ['Ada'], written: 'object', back: ['Ada'] } });
    expect(JSON.parse(fs.readFileSync(target, 'utf8'))).toEqual(['Ada']);
  });

  it('a server result with isError rejects the program call with ToolCallError carrying the server text', async () => {
    const harness = await harnessWith({ files });
    const run = await runProgram(
      harness,
      `try { await tools.files__read_text_file({ path: '/etc/hostname' }); return 'no error'; }
       catch (e) { return { isToolCallError: e instanceof ToolCallError, tool: e.toolName, code: e.code, message: e.message }; }`,
    );
    expect(run.value).toMatchObject({ isToolCallError: true, tool: 'files__read_text_file', code: 'TOOL_FAILED' });
    expect((run.value as { message: string }).message).toMatch(/Access denied/i);
  });
});

describe('mcp row in a preset file', () => {
  const presetText = (servers: string) =>
    [
      'description: The memory server through run_code.',
      'plugins:',
      '  - name: tool-presentation',
      '    config: { mode: ptc }',
      '  - name: node-runtime',
      '  - name: mcp',
      '    config:',
      '      mcpServers:',
      servers,
    ].join('\n');

  it('assembles with ${VAR} from the environment; the SDK the model sees names the server tools', async () => {
    const file = path.join(workspace, 'with-memory.yml');
    const server = `        memory: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(serverJs('memory'))}], env: { MEMORY_FILE_PATH: "\${PTC_MCP_TEST_MEMORY}" } }`;
    fs.writeFileSync(file, presetText(server));
    process.env.PTC_MCP_TEST_MEMORY = path.join(workspace, 'preset-memory.jsonl');
    try {
      const harness = await createHarness({ cwd: workspace, preset: file });
      open.push(harness);
      expect(harness.preset.mode).toBe('ptc');
      expect(renderSdkSection(harness.tools)).toContain('memory__read_graph');
      const run = await runProgram(harness, `await tools.memory__create_entities({ entities: [{ name: 'Di', entityType: 'dog', observations: [] }] }); return 'ok';`);
      expect(run.value).toBe('ok');
      expect(fs.readFileSync(process.env.PTC_MCP_TEST_MEMORY, 'utf8')).toContain('"Di"');
    } finally {
      delete process.env.PTC_MCP_TEST_MEMORY;
    }
  });

  it('a bad server name is CONFIG naming the preset file, the row and the server', async () => {
    const file = path.join(workspace, 'bad-name.yml');
    fs.writeFileSync(file, presetText('        "my server": { command: x }'));
    const error = await createHarness({ cwd: workspace, preset: file }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain(`${file}:6: row 3 \`mcp\``);
    expect((error as Error).message).toContain('mcpServers.my server: server names use only letters');
  });
});

describe('mcp row: typed returns', () => {
  it("an outputSchema types the tool's return in the SDK, checked by tsc", async () => {
    const harness = await harnessWith({ everything: { command: process.execPath, args: [serverJs('everything'), 'stdio'] } });
    const sdk = renderSdkSection(harness.tools, await harness.ptcScope());
    expect(sdk).toContain('everything__get-structured-content');
    const declarations = /```ts\n([\s\S]*?)```/.exec(sdk)?.[1] ?? sdk;
    const good = `async function main() {
      const weather = await tools['everything__get-structured-content']({ location: 'Chicago' });
      const t: number = weather.temperature;
      const c: string = weather.conditions;
      return [t, c];
    }`;
    expect(compileTs({ 'sdk.d.ts': declarations, 'main.ts': good }).diagnostics).toEqual([]);
    const bad = `async function main() {
      const weather = await tools['everything__get-structured-content']({ location: 'Chicago' });
      const t: string = weather.temperature;
      return t;
    }`;
    expect(compileTs({ 'sdk.d.ts': declarations, 'main.ts': bad }).diagnostics.join('\n')).toMatch(/TS2322/);

    const run = await runProgram(harness, `return await tools['everything__get-structured-content']({ location: 'Chicago' });`);
    expect(run.value).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });

  it('an image in the content becomes a one-line note beside the text', async () => {
    const harness = await harnessWith({ everything: { command: process.execPath, args: [serverJs('everything'), 'stdio'] } });
    const run = await runProgram(harness, `return await tools['everything__get-tiny-image']({});`);
    expect(run.ok).toBe(true);
    expect(run.value).toMatch(/\[image content omitted: image\/png, \d+ base64 characters\]/);
  });
});

describe('mcp row: lifecycle', () => {
  it('a server that fails to start makes the row CONFIG naming the server and its stderr tail', async () => {
    const failing = { command: process.execPath, args: ['-e', 'console.error("boom: the database is missing"); process.exit(3)'] };
    const error = await createHarness({ cwd: workspace, preset: 'minimal', plugins: [{ name: 'mcp', config: { mcpServers: { memory: memory('m2.jsonl'), broken: failing } }, at: 'test' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toMatch(/row \d+ `mcp` failed: MCP server `broken` failed to start: .*boom: the database is missing/);
  });

  it('a missing command is CONFIG naming the server', async () => {
    const error = await harnessWith({ nope: { command: path.join(workspace, 'no-such-server') } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain('MCP server `nope` failed to start');
    expect((error as Error).message).toContain(`command \`${path.join(workspace, 'no-such-server')}\` not found; is it installed?`);
    expect((error as Error).message).toContain('does not exist');
  });

  it('a command missing from PATH is CONFIG naming the command, PATH and the fix', async () => {
    const error = await harnessWith({ nope: { command: 'ptc-no-such-mcp-server' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    const message = (error as Error).message;
    expect(message).toContain('MCP server `nope` failed to start: command `ptc-no-such-mcp-server` not found; is it installed? PATH=');
    expect(message).toContain('Fix `command`');
    expect(message).not.toContain('ENOENT');
  });

  it('a missing cwd is told apart from a missing command', async () => {
    const error = await harnessWith({ nope: { command: process.execPath, cwd: 'no-such-dir' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain(`its working directory ${path.join(workspace, 'no-such-dir')} does not exist; fix \`cwd\``);
  });

  it('a server killed mid-session: the next call fails clearly, the one after restarts it (once)', async () => {
    const pidFile = path.join(workspace, 'memory.pid');
    // The real memory server, started by a line that first records its pid for the test to kill.
    const boot = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); import(${JSON.stringify(pathToFileURL(serverJs('memory')).href)});`;
    const harness = await harnessWith({ mem: { command: process.execPath, args: ['-e', boot], env: { MEMORY_FILE_PATH: path.join(workspace, 'killed.jsonl') } } });
    const call = () => harness.tools.execute('mem__read_graph', {}, { id: `c${Math.random()}` });

    expect((await call()).isError).toBe(false);
    const kill = async () => {
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      process.kill(pid, 'SIGKILL');
      await waitUntil('the killed server is gone', () => !isAlive(pid));
    };
    await kill();
    const failed = await call();
    expect(failed).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED' } });
    expect(failed.content).toMatch(/MCP server `mem` (exited|went away)/);
    expect(failed.content).toContain('The next call restarts it');

    const restarted = await call();
    expect(restarted.isError).toBe(false);
    expect(restarted.value).toMatchObject({ entities: [] });

    await kill();
    expect((await call()).isError).toBe(true);
    const final = await call();
    expect(final).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED' } });
    expect(final.content).toContain('not restarted again');
  });

  it('notifications/tools/list_changed adds and removes registry tools', async () => {
    const harness = await harnessWith({ dyn: { command: process.execPath, args: [listChangedServer] } });
    expect(harness.tools.get('dyn__hello')).toBeUndefined();
    expect((await harness.tools.execute('dyn__add_tool', { name: 'hello' }, { id: 'a' })).content).toBe('added hello');
    await waitUntil('dyn__hello is registered', () => harness.tools.get('dyn__hello') !== undefined);
    const run = await runProgram(harness, 'return await tools.dyn__hello({});');
    expect(run.value).toBe('I am hello');
    await harness.tools.execute('dyn__remove_tool', { name: 'hello' }, { id: 'r' });
    await waitUntil('dyn__hello is gone', () => harness.tools.get('dyn__hello') === undefined);
  });

  it('disposing the harness ends the server processes', async () => {
    const pidFile = path.join(workspace, 'disposed.pid');
    const boot = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); import(${JSON.stringify(pathToFileURL(serverJs('memory')).href)});`;
    const harness = await harnessWith({ mem: { command: process.execPath, args: ['-e', boot], env: { MEMORY_FILE_PATH: path.join(workspace, 'd.jsonl') } } });
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    await harness.dispose();
    await waitUntil('the server process ended', () => !isAlive(pid));
  });
});

describe('mcp row: streamable HTTP and ${VAR}', () => {
  it('talks to the everything server over streamable HTTP on loopback, with a header from the environment', async () => {
    const { createServer } = (await import(pathToFileURL(path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/server/index.js')).href)) as {
      createServer: () => { server: { connect(t: unknown): Promise<void>; close(): Promise<void> }; cleanup: (id?: string) => void };
    };
    const { server, cleanup } = createServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'session-1' });
    await server.connect(transport);
    const seen: string[] = [];
    const httpServer = http.createServer((req, res) => {
      seen.push(String(req.headers['x-test-token']));
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const port = (httpServer.address() as AddressInfo).port;
    process.env.PTC_MCP_TEST_TOKEN = 'secret-42';
    try {
      const harness = await harnessWith({ web: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-test-token': '${PTC_MCP_TEST_TOKEN}' } } });
      const run = await runProgram(harness, `return await tools.web__echo({ message: 'over http' });`);
      expect(run.value).toBe('Echo: over http');
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['secret-42']));
      await harness.dispose();
    } finally {
      delete process.env.PTC_MCP_TEST_TOKEN;
      cleanup('session-1');
      await server.close();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    }
  });

  it('an unset ${VAR} is CONFIG naming the server and the variable, before anything starts', async () => {
    const error = await harnessWith({ mem: { ...memory(), args: [serverJs('memory'), '${PTC_MCP_SURELY_UNSET}'] } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain('MCP server `mem`: args.1 uses ${PTC_MCP_SURELY_UNSET}');
  });
});

describe('ptc --mcp-config', () => {
  it('ptc run: the model writes a program against the servers of a config file (scripted model)', async () => {
    const config = writeConfig('run.json', { memory: memory('run.jsonl') });
    const sessions = fs.mkdtempSync(path.join(workspace, 'sessions-'));
    const code = `await tools.memory__create_entities({ entities: [{ name: 'Cy', entityType: 'robot', observations: ['beeps'] }] });
return (await tools.memory__read_graph({})).entities[0].observations;`;
    const server = await startScriptedOpenAIServer([reply.toolCall('run_code', { code, description: 'remember Cy' }, 'rc'), reply.text('Cy beeps.')]);
    try {
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        // Not spawnSync: the scripted model server lives in this process's event loop.
        const child = spawn(process.execPath, [bin, 'run', 'What does Cy do?', '--mcp-config', config, '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessions], {
          cwd: workspace,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (exit) => resolve({ code: exit, stdout, stderr }));
      });
      expect(run.stderr).not.toContain('Error');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Cy beeps.\n');
      // The SDK the model saw names the server's tools; the program's result went back to it.
      expect(JSON.stringify(server.requests[0]!.json)).toContain('memory__read_graph');
      expect(JSON.stringify(server.requests[1]!.json)).toContain('beeps');
    } finally {
      await server.close();
    }
  });

  it('ptc exec runs a program against a config file of servers', () => {
    const config = writeConfig('servers.json', { memory: memory('cli.jsonl') });
    const program = path.join(workspace, 'program.ts');
    fs.writeFileSync(program, `await tools.memory__create_entities({ entities: [{ name: 'Bo', entityType: 'cat', observations: [] }] });\nreturn (await tools.memory__read_graph({})).entities.map((e) => e.name);`);
    const { code, stdout, stderr } = ptc(['exec', program, '--preset', 'minimal', '--mcp-config', config, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, value: ['Bo'] });
  });

  it('ptc tools lists the servers of every --mcp-config file', () => {
    const a = writeConfig('a.json', { memory: memory('a.jsonl') });
    const b = writeConfig('b.json', { files });
    const { code, stdout } = ptc(['tools', '--preset', 'minimal', '--mcp-config', a, '--mcp-config', b, '--json']);
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['memory__read_graph', 'files__read_text_file']));
  });

  it('a server that fails to start exits 2 naming the file and the server, no stack trace', () => {
    const config = writeConfig('broken.json', { broken: { command: process.execPath, args: ['-e', 'console.error("cannot open the index"); process.exit(1)'] } });
    const { code, stdout, stderr } = ptc(['tools', '--mcp-config', config]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--mcp-config ${config}`);
    expect(stderr).toMatch(/MCP server `broken` failed to start: .*cannot open the index/);
    expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });

  it('a missing command exits 2 naming the file, the server, the command and PATH', () => {
    const config = writeConfig('missing.json', { weather: { command: 'ptc-no-such-weather-server' } });
    const { code, stdout, stderr } = ptc(['tools', '--mcp-config', config]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--mcp-config ${config}`);
    expect(stderr).toContain('MCP server `weather` failed to start: command `ptc-no-such-weather-server` not found; is it installed? PATH=');
    expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });

  it.each([
    ['a bad server name', { 'bad name': { command: 'x' } }, 'mcpServers.bad name: server names use only letters'],
    ['an entry of neither shape', { web: { url: 'http://127.0.0.1:1/mcp' } }, 'mcpServers.web: a server is { command'],
  ])('%s in a config file exits 2 naming the file and the server', (_label, servers, message) => {
    const config = writeConfig(`bad-${Object.keys(servers)[0]!.length}.json`, servers);
    const { code, stderr } = ptc(['tools', '--mcp-config', config]);
    expect(code).toBe(2);
    expect(stderr).toContain(config);
    expect(stderr).toContain(message);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
