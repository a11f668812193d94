// Code mode served over MCP (docs/mcp-server.md): one tool, run_code, whose description carries the
// SDK of the preset's visible tools; each call runs a program through the same pipeline and runtime
// as `ptc exec` (execProgram in a ptc scope). Only the MCP SDK's Server speaks the protocol.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../../context/context.js';
import { execProgram, type ExecJson } from '../../ptc/exec-program.js';
import { renderSdkSection } from '../../ptc/prompt-sections.js';
import { RUN_CODE_TOOL_NAME } from '../../tools/tool-runtime.js';
import { boundDispatches } from './bound-dispatches.js';
import { createCallReporter } from './call-reporter.js';

export interface CodeModeServerOptions {
  /** A ptc scope over the preset's tools (`harness.ptcScope()`): the tools a program can call. */
  readonly scope: Context;
  /** The preset's name, for the tool description. */
  readonly presetName: string;
  /** The server version announced in `initialize` (the package version). */
  readonly version: string;
}

/** The name the server announces in `initialize`. */
export const MCP_SERVER_NAME = 'ptc-harness';

/** `structuredContent` of a run_code result: the `ptc exec --json` shapes (README "ptc exec --json", docs/mcp-server.md). */
export interface RunCodeStructuredContent {
  [key: string]: unknown;
  value?: ExecJson['value'];
  logs: ExecJson['logs'];
  /** Each content cut at MAX_MCP_DISPATCH_CONTENT_CHARS, the list at MAX_MCP_DISPATCHES_BYTES. */
  dispatches: ExecJson['dispatches'];
  /** Dispatches left out of `dispatches` for size (absent when none were). */
  dispatchesOmitted?: number;
  /** Present when the program failed (the code is also in the text content). */
  error?: NonNullable<ExecJson['error']>;
}

/** Declared so clients can check `structuredContent`; `value` is any JSON the program returned. */
const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    value: { description: 'The JSON value the program returned; absent when it returned nothing.' },
    logs: { type: 'array', items: { type: 'string' }, description: 'console.log/info/warn/error lines, in order.' },
    dispatches: {
      type: 'array',
      description: 'Every tool call the program made, in dispatch order.',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          tool: { type: 'string' },
          args: {},
          isError: { type: 'boolean' },
          content: { type: 'string' },
        },
        required: ['id', 'tool', 'args', 'isError', 'content'],
      },
    },
    dispatchesOmitted: { type: 'integer', description: 'Dispatches left out of `dispatches` for size.' },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['logs', 'dispatches'],
} satisfies Tool['outputSchema'];

/** Builds the server; connect it to a transport (serveMcpStdio does, over stdin/stdout). */
export function createCodeModeServer(options: CodeModeServerOptions): Server {
  const { scope } = options;
  const server = new Server(
    { name: MCP_SERVER_NAME, version: options.version },
    { capabilities: { tools: {}, logging: {} } },
  );
  let calls = 0;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [runCodeTool(options)] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    if (name !== RUN_CODE_TOOL_NAME) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}: this server has one tool, ${RUN_CODE_TOOL_NAME}.`);
    }
    // Ids are unique per server so concurrent calls' sub-calls (`mcp:<n>:ptc:<k>`) never mix.
    const id = `mcp:${++calls}`;
    const reporter = createCallReporter(server, extra);
    const { json, content } = await execProgram(scope, {
      args: request.params.arguments ?? {},
      id,
      signal: extra.signal,
      onDispatchStart: reporter.started,
      onDispatch: reporter.settled,
    });
    // Notifications of the sub-calls go out before the result that ends the request.
    await reporter.flush();
    const bounded = boundDispatches(json.dispatches);
    const structuredContent: RunCodeStructuredContent = {
      ...(json.value !== undefined ? { value: json.value } : {}),
      logs: json.logs,
      dispatches: bounded.dispatches,
      ...(bounded.omitted !== undefined ? { dispatchesOmitted: bounded.omitted } : {}),
      ...(json.error ? { error: json.error } : {}),
    };
    return { content: [{ type: 'text', text: content }], structuredContent, ...(json.ok ? {} : { isError: true }) };
  });

  return server;
}

/** The run_code tool as MCP clients list it: the registry's wire schema, the SDK in the description. */
function runCodeTool({ scope, presetName }: CodeModeServerOptions): Tool {
  const wire = scope.tools.wireTools(scope).find((t) => t.name === RUN_CODE_TOOL_NAME);
  if (!wire) throw new McpError(ErrorCode.InternalError, `The ${RUN_CODE_TOOL_NAME} transport is not installed in the served scope.`);
  const lead =
    `Run a TypeScript program against the tools of the ptc-harness preset \`${presetName}\`: the program runs in a fresh, ` +
    'sandboxed Node process; each `await tools.<name>(args)` in it is a real tool call. Only what the program returns or ' +
    'logs comes back. The result also carries `structuredContent` `{ value, logs, dispatches }`.';
  const description = `${lead}\n\n${renderSdkSection(scope.tools, scope)}`;
  return {
    name: RUN_CODE_TOOL_NAME,
    description,
    inputSchema: { ...objectOf(wire.inputSchema), type: 'object' },
    outputSchema: OUTPUT_SCHEMA,
    annotations: { title: 'Run a TypeScript program (code mode)' },
  };
}

/** The registry's wire schema is an object schema; anything else would be a registry bug. */
function objectOf(schema: unknown): Record<string, unknown> {
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) return schema as Record<string, unknown>;
  throw new McpError(ErrorCode.InternalError, `The ${RUN_CODE_TOOL_NAME} input schema is not a JSON object.`);
}
