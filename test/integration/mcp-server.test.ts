// `ptc mcp serve` as an MCP client drives it: the real binary (dist/, built by the global setup)
// over stdio, spoken to by the MCP SDK's own Client.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type JSONRPCMessage, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'dist/cli/ptc.cjs');
let workspace: string;
let client: Client;
let stderr = '';
/** Every message the client read from the server, in wire order. */
const wire: JSONRPCMessage[] = [];

function serverParams(extra: string[] = []) {
  return {
    command: process.execPath,
    args: [bin, 'mcp', 'serve', '--cwd', workspace, ...extra],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
    stderr: 'pipe' as const,
  };
}

async function connect(extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport(serverParams(extra));
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const c = new Client({ name: 'mcp-server-test', version: '0.0.0' });
  await c.connect(transport);
  // Record the wire before the SDK's Protocol sees each message.
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    wire.push(message);
    deliver?.(message);
  };
  return c;
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

beforeAll(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-mcp-serve-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n// TODO: one\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
  // A plugin that prints on stdout while the preset assembles: the protocol must survive it.
  fs.writeFileSync(path.join(workspace, 'noisy.mjs'), "export const name = 'noisy';\nexport function apply() { console.log('noise from a plugin'); }\n");
  client = await connect(['--plugin', path.join(workspace, 'noisy.mjs')]);
});

afterAll(async () => {
  await client?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

describe('ptc mcp serve', () => {
  it('lists exactly one tool, run_code, with the SDK of the preset in its description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_code']);
    const [tool] = tools;
    expect(tool!.description).toMatch(/^Run a TypeScript program against the tools of the ptc-harness preset `ptc`: [^\n]+\n\n## Calling tools with run_code\n/);
    expect(tool!.description).toContain('```ts');
    expect(tool!.description).toMatch(/\bglob\b/);
    expect(tool!.description).toMatch(/\bread\b/);
    expect(tool!.inputSchema).toMatchObject({ type: 'object', required: ['code', 'description'] });
    expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual(['code', 'description', 'timeoutMs']);
    // The plugin's console.log went to stderr, not into the protocol.
    expect(stderr).toContain('noise from a plugin');
  });

  it("returns a program's rendering as text and its value, logs and dispatches as structuredContent", async () => {
    const code = [
      "const { files } = await tools.glob({ pattern: '*.txt' });",
      'console.log(`found ${files.length}`);',
      'return files.sort();',
    ].join('\n');
    const result = (await client.callTool({ name: 'run_code', arguments: { code, description: 'list text files' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('found 2');
    expect(text(result)).toContain('"a.txt"');
    const structured = result.structuredContent as { value: unknown; logs: string[]; dispatches: { id: string; tool: string; args: unknown; isError: boolean }[] };
    expect(structured.value).toEqual(['a.txt', 'b.txt']);
    expect(structured.logs).toEqual(['found 2']);
    expect(structured.dispatches).toHaveLength(1);
    expect(structured.dispatches[0]).toMatchObject({ tool: 'glob', args: { pattern: '*.txt' }, isError: false });
    expect(structured.dispatches[0]!.id).toMatch(/^mcp:\d+:ptc:1$/);
  });

  it('marks a failed program with isError and its code in the text', async () => {
    const code = "console.log('before');\nthrow new Error('boom');";
    const result = (await client.callTool({ name: 'run_code', arguments: { code, description: 'fail' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('EXCEPTION');
    expect(text(result)).toContain('boom');
    expect(result.structuredContent).toMatchObject({ logs: ['before'], dispatches: [], error: { code: 'EXCEPTION' } });

    const invalid = (await client.callTool({ name: 'run_code', arguments: { code: 'return 1' } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('INVALID_ARGS');
  });

  it('reports sub-calls as progress notifications when the client sends a progress token', async () => {
    const from = wire.length;
    const code = "await tools.read({ path: 'a.txt' });\nawait tools.grep({ pattern: 'TODO' });\nreturn 'ok';";
    // The callback makes the SDK send a progress token. What it receives is not asserted: the SDK's
    // client hands notifications on through a microtask but settles the response at once, so a last
    // notification read in the same chunk as the response reaches no handler. The wire is asserted.
    const result = (await client.callTool({ name: 'run_code', arguments: { code, description: 'two calls' } }, undefined, {
      onprogress: () => {},
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const messages = wire.slice(from);
    const response = messages.findIndex((m) => 'id' in m && 'result' in m);
    expect(response).toBeGreaterThanOrEqual(0);
    const progress = messages.flatMap((m, index) =>
      'method' in m && m.method === 'notifications/progress' ? [{ index, params: m.params as { progress: number; message?: string } }] : [],
    );
    // Notifications precede the response on the same ordered stream.
    expect(progress.every((p) => p.index < response)).toBe(true);
    expect(progress.map((p) => p.params.progress)).toEqual([1, 2, 3, 4]);
    expect(progress.map((p) => p.params.message?.replace(/^\S+ /, ''))).toEqual(['read started', 'read done', 'grep started', 'grep done']);
  });

  it('reports sub-calls as logging notifications without a progress token', async () => {
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    const code = "try { await tools.read({ path: 'missing.txt' }); } catch (e) { return e.code; }";
    const result = (await client.callTool({ name: 'run_code', arguments: { code, description: 'one failing call' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(messages.map((m) => [m.level, m.logger, (m.data as { phase: string; tool: string }).phase])).toEqual([
      ['info', 'run_code', 'start'],
      ['warning', 'run_code', 'end'],
    ]);
    expect(messages[1]!.data).toMatchObject({ tool: 'read', isError: true });
  });

  it('bounds the dispatches it reports: long contents cut with a note, the rest counted', async () => {
    fs.writeFileSync(path.join(workspace, 'big.txt'), `${'x'.repeat(1_000)}\n`.repeat(40));
    const code = "for (let i = 0; i < 600; i++) await tools.read({ path: 'big.txt' });\nreturn 'read';";
    const result = (await client.callTool({ name: 'run_code', arguments: { code, description: 'many big reads' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { dispatches: { content: string }[]; dispatchesOmitted?: number };
    expect(structured.dispatches[0]!.content).toMatch(/\[cut: the content has \d+ characters; ptc exec --json shows it whole\]$/);
    expect(structured.dispatches.length).toBeGreaterThan(0);
    expect(structured.dispatches.length + (structured.dispatchesOmitted ?? 0)).toBe(600);
    expect(structured.dispatchesOmitted).toBeGreaterThan(0);
  });

  it("keeps concurrent calls' dispatches apart", async () => {
    const call = (pattern: string) =>
      client.callTool({ name: 'run_code', arguments: { code: `return (await tools.glob({ pattern: '${pattern}' })).files;`, description: pattern } }) as Promise<CallToolResult>;
    const [a, b] = await Promise.all([call('a.*'), call('b.*')]);
    for (const [result, pattern, file] of [[a, 'a.*', 'a.txt'], [b, 'b.*', 'b.txt']] as const) {
      const structured = result.structuredContent as { value: unknown; dispatches: { id: string; args: unknown }[] };
      expect(structured.value).toEqual([file]);
      expect(structured.dispatches.map((d) => d.args)).toEqual([{ pattern }]);
    }
    const ids = [a, b].map((r) => (r.structuredContent as { dispatches: { id: string }[] }).dispatches[0]!.id.replace(/:ptc:1$/, ''));
    expect(new Set(ids).size).toBe(2);
  });

  it('refuses a tool other than run_code with a protocol error', async () => {
    await expect(client.callTool({ name: 'read', arguments: { path: 'a.txt' } })).rejects.toThrow(/one tool, run_code/);
  });
});

describe('ptc mcp serve --mcp-config', () => {
  it('serves code mode in front of another MCP server: its tools in the SDK and callable from a program', async () => {
    const config = path.join(workspace, 'servers.json');
    const memoryServer = path.join(root, 'node_modules/.bin/mcp-server-memory');
    const memoryFile = path.join(workspace, 'memory.jsonl');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { memory: { command: memoryServer, env: { MEMORY_FILE_PATH: memoryFile } } } }));
    const proxy = await connect(['--mcp-config', config]);
    try {
      const { tools } = await proxy.listTools();
      expect(tools.map((t) => t.name)).toEqual(['run_code']);
      expect(tools[0]!.description).toContain('memory__read_graph');
      const code = [
        "await tools.memory__create_entities({ entities: [{ name: 'ptc', entityType: 'project', observations: ['serves code mode'] }] });",
        "const graph = await tools.memory__read_graph({});",
        'return graph.entities.map((e) => e.name);',
      ].join('\n');
      const result = (await proxy.callTool({ name: 'run_code', arguments: { code, description: 'memory round trip' } })) as CallToolResult;
      expect(text(result)).not.toContain('Error [');
      const structured = result.structuredContent as { value: unknown; dispatches: { tool: string }[] };
      expect(structured.value).toEqual(['ptc']);
      expect(structured.dispatches.map((d) => d.tool)).toEqual(['memory__create_entities', 'memory__read_graph']);
    } finally {
      await proxy.close();
    }
  });
});

describe('ptc mcp serve lifecycle', () => {
  it('exits cleanly when its stdin closes', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', 'serve', '--cwd', workspace], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let out = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolve();
      }),
    );
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    await answered;
    child.stdin.end();
    expect(await exited).toEqual({ code: 0, signal: null });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'ptc-harness' } } });
  });
});
