// One MCP server tool as a registry tool `<server>__<tool>`: the server's description and schemas
// made prompt-safe (server-text.ts), `readOnlyHint` as concurrency safety when the user trusts the
// server's hints, and a call result turned into the value a program gets (docs/mcp.md):
// `structuredContent` when present, else the text content joined; `isError` throws.

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailedError } from '../../errors.js';
import { checkJson, type JsonSchema, type JsonValue } from '../../json.js';
import { defineTool } from '../../tools/define-tool.js';
import type { AnyToolDefinition, ToolExecContext } from '../../tools/types.js';
import type { McpConnection } from './connection.js';
import { promptLine, promptSafeSchema } from './server-text.js';

/** The registry name of a server's tool. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/** The registry tool for one of `connection`'s tools. */
export function createServerTool(connection: McpConnection, tool: Tool): AnyToolDefinition {
  const name = mcpToolName(connection.name, tool.name);
  // A hint is the server's claim about itself: believed only for a server the user marked
  // `readOnlyHintTrusted`; otherwise the tool is exclusive and asks under `--approve writes`.
  const readOnly = connection.readOnlyHintTrusted && tool.annotations?.readOnlyHint === true;
  return defineTool<Record<string, unknown>, JsonValue>({
    name,
    description: promptLine(tool.description ?? tool.title ?? ''),
    inputSchema: promptSafeSchema(tool.inputSchema as JsonSchema),
    ...(tool.outputSchema ? { outputSchema: promptSafeSchema(tool.outputSchema as JsonSchema) } : {}),
    ...(readOnly ? { isConcurrencySafe: true } : {}),
    async execute(args, exec: ToolExecContext) {
      const result = await connection.callTool(tool.name, args, exec.signal);
      return valueOf(name, result, exec);
    },
  }) as AnyToolDefinition;
}

/**
 * The value of a call. Content that is not text becomes a one-line note: beside the text when the
 * text is the value, as a deferred context when `structuredContent` is (never silently dropped).
 */
export function valueOf(name: string, result: CallToolResult, exec: Pick<ToolExecContext, 'deferContext'>): JsonValue {
  const texts: string[] = [];
  const notes: string[] = [];
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block.type === 'text') texts.push(block.text);
    else notes.push(noteOf(block));
  }
  if (result.isError === true) {
    const text = [...texts, ...notes].join('\n').trim();
    throw new ToolFailedError(text !== '' ? text : `${name} reported an error without a message.`);
  }
  if (result.structuredContent !== undefined) {
    const check = checkJson(result.structuredContent);
    if (!check.ok) throw new ToolFailedError(`${name} returned structuredContent that is not JSON (${check.path}: ${check.reason}).`);
    if (notes.length > 0) exec.deferContext({ source: name, text: notes.join('\n') });
    return result.structuredContent as JsonValue;
  }
  return [...texts, ...notes].join('\n');
}

function noteOf(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return `[${block.type} content omitted: ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      return 'text' in resource && typeof resource.text === 'string'
        ? `[resource ${resource.uri}]\n${resource.text}`
        : `[resource omitted: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content omitted]`;
  }
}
