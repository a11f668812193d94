// `ptc chat --watch` through the built binary with stdin piped (docs/plugin-reload.md): a plugin file
// edited between two turns is reloaded before the second, and the model's call of its tool on that
// turn reaches the new version. Only the model's choices are scripted (a real server on loopback).

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult, reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { PTC_BIN } from '../helpers/run-ptc.js';
import { waitUntil } from '../helpers/wait-until.js';

const PLUGIN = `import { VERSION } from './version.js';
export const name = 'greeter';
export function apply(ctx: any): void {
  ctx.tools.register({
    name: 'greet',
    description: 'Greets (version ' + VERSION + ').',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute: async () => ({ greeting: 'hello from ' + VERSION }),
  });
}
`;
const version = (v: string) => `export const VERSION: string = ${JSON.stringify(v)};\n`;

let server: ScriptedServer | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
let tmp: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await server?.close();
  if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  child = undefined;
  server = undefined;
  tmp = undefined;
});

function greetDescription(request: { json: unknown } | undefined): string | undefined {
  const tools = (request?.json as { tools?: { function: { name: string; description: string } }[] }).tools ?? [];
  return tools.find((t) => t.function.name === 'greet')?.function.description;
}

describe('ptc chat --watch', { timeout: 120_000 }, () => {
  it('reloads an edited plugin file between turns; the next turn calls the new version of its tool', () => chatAcrossAnEdit(['--watch']));
  it('`watchPlugins: true` in the config file does the same without the flag', () => chatAcrossAnEdit([], 'watchPlugins: true\n'));
});

async function chatAcrossAnEdit(flags: readonly string[], config?: string): Promise<void> {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-reload-cli-')));
  const workspace = path.join(tmp, 'ws');
  // Outside the workspace: programs cannot write it, so its edits may be reloaded.
  const plugins = path.join(tmp, 'plugins');
  fs.mkdirSync(workspace);
  fs.mkdirSync(plugins);
  fs.writeFileSync(path.join(plugins, 'greeter.ts'), PLUGIN);
  fs.writeFileSync(path.join(plugins, 'version.ts'), version('v1'));
  if (config !== undefined) {
    fs.mkdirSync(path.join(tmp, '.config', 'ptc'), { recursive: true });
    fs.writeFileSync(path.join(tmp, '.config', 'ptc', 'config.yaml'), config);
  }
  server = await startScriptedOpenAIServer([
    reply.toolCall('greet', {}, 'g1'),
    reply.text('First answer.'),
    reply.toolCall('greet', {}, 'g2'),
    reply.text('Second answer.'),
  ]);
  child = spawn(
    process.execPath,
    [PTC_BIN, 'chat', ...flags, '--preset', 'minimal', '--plugin', path.join(plugins, 'greeter.ts'), '--base-url', server.baseUrl, '--model', 'scripted', '--approve', 'never', '--session-dir', path.join(tmp, 'sessions')],
    { cwd: workspace, env: { HOME: tmp, PTC_HOME: path.join(tmp, 'home'), PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child!.on('close', (code) => resolve(code)));
  const waitOut = (what: string, pattern: RegExp) =>
    waitUntil(what, () => pattern.test(stdout), 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    });

  child.stdin.write('Greet me.\n');
  await waitOut('the first answer', /First answer\./);
  expect(lastToolResult(server.requests[1])).toContain('hello from v1');
  expect(greetDescription(server.requests[0])).toBe('Greets (version v1).');

  // The person edits the plugin's helper between the turns.
  fs.writeFileSync(path.join(plugins, 'version.ts'), version('v2'));
  child.stdin.write('Again.\n');
  await waitOut('the second answer', /Second answer\./);
  child.stdin.end();
  expect(await exited).toBe(0);

  expect(stderr).toContain(`reloaded plugin "greeter" from ${path.join(plugins, 'greeter.ts')}`);
  expect(greetDescription(server.requests[2])).toBe('Greets (version v2).');
  expect(lastToolResult(server.requests[3])).toContain('hello from v2');
  expect(lastToolResult(server.requests[3])).not.toContain('v1');
}
