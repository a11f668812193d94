// One MCP server tool as a registry tool `<server>__<tool>`: the server's description and schemas,
// `readOnlyHint` as concurrency safety, and a call result turned into the value a program gets
// (docs/mcp.md): `structuredContent` when present, else the text content joined; `isError` throws.

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailedError } from '../../errors.js';
import { checkJson, type JsonSchema, type JsonValue } from '../../json.js';
import { MCP_MAX_TOOL_DESCRIPTION_CHARS } from '../../limits.js';
import { defineTool } from '../../tools/define-tool.js';
import type { AnyToolDefinition, ToolExecContext } from '../../tools/types.js';
import type { McpConnection } from './connection.js';

/** The registry name of a server's tool. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/** The registry tool for one of `connection`'s tools. */
export function createServerTool(connection: McpConnection, tool: Tool): AnyToolDefinition {
  const name = mcpToolName(connection.name, tool.name);
  return defineTool<Record<string, unknown>, JsonValue>({
    name,
    description: describe(tool),
    inputSchema: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonSchema } : {}),
    ...(tool.annotations?.readOnlyHint === true ? { isConcurrencySafe: true } : {}),
    async execute(args, exec: ToolExecContext) {
      const result = await connection.callTool(tool.name, args, exec.signal);
      return valueOf(name, result, exec);
    },
  }) as AnyToolDefinition;
}

function describe(tool: Tool): string {
  const text = tool.description ?? tool.title ?? '';
  if (text.length <= MCP_MAX_TOOL_DESCRIPTION_CHARS) return text;
  return `${text.slice(0, MCP_MAX_TOOL_DESCRIPTION_CHARS)}\n[description cut: ${text.length} characters]`;
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
