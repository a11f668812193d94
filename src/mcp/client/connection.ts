// One MCP server as the `mcp` row holds it: started with the SDK's client over stdio or streamable
// HTTP, its tools listed (all pages), its calls made, and — when it dies mid-session — restarted
// once on the next call (docs/mcp.md). Everything the server sends is checked by the SDK's schemas
// on receipt; the sizes we keep (stderr tail, tool count) are bounded here.

import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, ToolFailedError } from '../../errors.js';
import {
  MCP_MAX_LIST_PAGES,
  MCP_MAX_RESTARTS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_SERVER_START_TIMEOUT_MS,
  MCP_STDERR_TAIL_BYTES,
  MCP_TOOL_CALL_TIMEOUT_MS,
} from './limits.js';
import type { McpServerConfig } from './config.js';

const CLIENT_INFO = { name: 'ptc-harness', version: '1' };

export interface McpConnectionOptions {
  readonly name: string;
  readonly config: McpServerConfig;
  /** Where a relative `cwd` resolves and the default working directory of a stdio server. */
  readonly workspace: string;
  /** Called with the server's new tool list after `notifications/tools/list_changed` or a restart. */
  readonly onToolsChanged: (tools: readonly Tool[]) => void;
  readonly startTimeoutMs?: number;
}

/** The last bytes a stdio server wrote on stderr, for messages (one line). */
class StderrTail {
  private text = '';
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-MCP_STDERR_TAIL_BYTES);
  }
  describe(): string {
    const lines = this.text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    return lines.length > 0 ? `; its stderr ends: ${lines.join(' | ')}` : '';
  }
}

export class McpConnection {
  readonly name: string;
  private readonly options: McpConnectionOptions;
  private client: Client | undefined;
  private stderr = new StderrTail();
  /** Why the live client went away, when it did on its own (process exit, HTTP session closed). */
  private died: string | undefined;
  /** Whether a call has failed with the news of the death: a silent restart would hide the server's lost state. */
  private reported = false;
  private restarts = 0;
  private closing = false;
  private restarting: Promise<void> | undefined;

  constructor(options: McpConnectionOptions) {
    this.name = options.name;
    this.options = options;
  }

  /** Whether the user marked this server's `readOnlyHint` as believed (config `readOnlyHintTrusted`). */
  get readOnlyHintTrusted(): boolean {
    return this.options.config.readOnlyHintTrusted === true;
  }

  /** Starts the server and lists its tools; CONFIG naming the server (and its stderr tail) on failure. */
  async start(): Promise<Tool[]> {
    const timeoutMs = this.options.startTimeoutMs ?? MCP_SERVER_START_TIMEOUT_MS;
    try {
      return await this.connect(timeoutMs);
    } catch (error) {
      await this.close();
      const missing = this.missingCommand(error);
      if (missing !== undefined) throw new ConfigError(`MCP server \`${this.name}\` failed to start: ${missing}`);
      throw new ConfigError(`MCP server \`${this.name}\` failed to start: ${reasonOf(error)}${this.stderr.describe()}`);
    }
  }

  /**
   * Calls one tool. The first call cut off by the server dying, or made after it died, fails with
   * TOOL_FAILED saying so (the server's state is gone); the next call restarts it, at most
   * MCP_MAX_RESTARTS times.
   */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.died !== undefined) {
      if (!this.reported) {
        this.reported = true;
        throw new ToolFailedError(`MCP server \`${this.name}\` ${this.died}${this.stderr.describe()}; ${tool} was not called. ${this.restartHint()}`);
      }
      await this.restart();
    }
    const client = this.client;
    if (!client) throw new ToolFailedError(`MCP server \`${this.name}\` is closed.`);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: MCP_TOOL_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      });
      return result as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (this.client !== client || this.died !== undefined) {
        this.reported = true;
        throw new ToolFailedError(`MCP server \`${this.name}\` ${this.died ?? 'went away'} during the call to ${tool}${this.stderr.describe()}. ${this.restartHint()}`);
      }
      throw new ToolFailedError(`MCP server \`${this.name}\`: ${tool} failed: ${reasonOf(error)}`);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
  }

  private restartHint(): string {
    return this.restarts < MCP_MAX_RESTARTS ? 'The next call restarts it (its state is lost).' : 'It was restarted already and is not restarted again; start a new session.';
  }

  private async restart(): Promise<void> {
    if (this.restarting) return this.restarting;
    if (this.restarts >= MCP_MAX_RESTARTS) {
      throw new ToolFailedError(`MCP server \`${this.name}\` ${this.died ?? 'is gone'} and was restarted already; it is not restarted again. Start a new session.`);
    }
    this.restarts++;
    this.restarting = (async () => {
      const before = this.died;
      try {
        const tools = await this.connect(this.options.startTimeoutMs ?? MCP_SERVER_START_TIMEOUT_MS);
        this.options.onToolsChanged(tools);
      } catch (error) {
        // The half-started client goes too (a server that hung in initialize is still running).
        const failed = this.client;
        this.client = undefined;
        await failed?.close().catch(() => {});
        this.died = before;
        throw new ToolFailedError(`MCP server \`${this.name}\` ${before ?? 'is gone'} and could not be restarted: ${reasonOf(error)}${this.stderr.describe()}`);
      } finally {
        this.restarting = undefined;
      }
    })();
    return this.restarting;
  }

  private async connect(timeoutMs: number): Promise<Tool[]> {
    this.stderr = new StderrTail();
    this.died = undefined;
    this.reported = false;
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        // Our own listing follows every page; the SDK's refresh would read one.
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void this.relist(client) },
      },
    });
    const transport = this.transport();
    client.onclose = () => {
      if (this.client === client && !this.closing) this.died = this.died ?? 'exited';
    };
    this.client = client;
    await client.connect(transport, { timeout: timeoutMs });
    return await listAllTools(client, this.name, timeoutMs);
  }

  private async relist(client: Client): Promise<void> {
    if (this.client !== client) return;
    try {
      this.options.onToolsChanged(await listAllTools(client, this.name, MCP_SERVER_START_TIMEOUT_MS));
    } catch {
      // A failed re-list keeps the tools we have; calls to a tool the server dropped fail on their own.
    }
  }

  /**
   * A spawn ENOENT, said as what to fix: Node reports a missing command and a missing `cwd` the
   * same way (`spawn x ENOENT`), so the cwd is checked to tell them apart (docs/mcp.md).
   */
  private missingCommand(error: unknown): string | undefined {
    const config = this.options.config;
    if (config.type === 'http' || !isRecord(error) || error.code !== 'ENOENT') return undefined;
    const cwd = path.resolve(this.options.workspace, config.cwd ?? '.');
    if (!fs.existsSync(cwd)) return `its working directory ${cwd} does not exist; fix \`cwd\` in the server's config.`;
    const env = { ...getDefaultEnvironment(), ...config.env };
    const where = config.command.includes('/') ? `${path.resolve(cwd, config.command)} does not exist` : `PATH=${env.PATH ?? '(unset)'}`;
    return `command \`${config.command}\` not found; is it installed? ${where}. Fix \`command\` in the server's config or install it.`;
  }

  private transport(): Transport {
    const config = this.options.config;
    if (config.type === 'http') {
      let url: URL;
      try {
        url = new URL(config.url);
      } catch {
        throw new ConfigError(`MCP server \`${this.name}\`: url ${JSON.stringify(config.url)} is not a URL.`);
      }
      return new StreamableHTTPClientTransport(url, config.headers ? { requestInit: { headers: config.headers } } : undefined);
    }
    const transport = new StdioClientTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      // The SDK's safe default (PATH, HOME, ...) plus what the config names: not the whole environment.
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: path.resolve(this.options.workspace, config.cwd ?? '.'),
      stderr: 'pipe',
    });
    const tail = this.stderr;
    transport.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    return transport;
  }
}

async function listAllTools(client: Client, name: string, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MCP_MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor !== undefined ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...result.tools);
    if (tools.length > MCP_MAX_TOOLS_PER_SERVER) {
      throw new ConfigError(`MCP server \`${name}\` lists more than ${MCP_MAX_TOOLS_PER_SERVER} tools.`);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ConfigError(`MCP server \`${name}\` kept paging tools/list past ${MCP_MAX_LIST_PAGES} pages.`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').find((line) => line.trim() !== '')?.trim() ?? 'unknown error';
}
