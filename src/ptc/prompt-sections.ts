// The prompt sections of PTC mode: `tools:sdk` (the generated SDK plus how to call run_code) and
// `tools:ptc-only` (native tool names in the prompt are reachable only inside programs). Both render
// empty — and are dropped — in native scopes; both are byte-stable for provider prompt caching.

import { renderTypeScriptSdk } from '../codegen/index.js';
import type { Context } from '../context/context.js';
import { compileSchema } from '../tools/schema-validator.js';
import { RUN_CODE_TOOL_NAME, type ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolSchema } from '../tools/types.js';

export const SDK_SECTION_ID = 'tools:sdk';
export const PTC_ONLY_SECTION_ID = 'tools:ptc-only';

const BASH_EXAMPLE_ARGS = { command: 'ls -la' };
const BASH_EXAMPLE_CODE = "const r = await tools.bash({ command: 'ls -la' });\nreturn r.exitCode === 0 ? r.stdout : r.stderr;";

/** The `tools:sdk` section for a scope; empty in native scopes. */
export function renderSdkSection(tools: ToolRuntime, scope?: Context): string {
  if (tools.modeFor(scope) !== 'ptc') return '';
  return renderSdkInstructions(tools.schemas(scope));
}

/** The `tools:ptc-only` section for a scope; empty in native scopes. */
export function renderPtcOnlySection(tools: ToolRuntime, scope?: Context): string {
  if (tools.modeFor(scope) !== 'ptc') return '';
  const names = tools.schemas(scope).map((t) => t.name);
  return [
    '## Tools are reachable only inside run_code',
    '',
    `The only tool you can call directly is \`${RUN_CODE_TOOL_NAME}\`. Every other tool named anywhere in this prompt` +
      (names.length > 0 ? ` (${names.map((n) => `\`${n}\``).join(', ')})` : '') +
      ` exists only as a binding inside your programs: call it as \`await tools.<name>(args)\` in the \`code\` of a` +
      ` \`${RUN_CODE_TOOL_NAME}\` call. A direct call of such a name fails as an unknown tool.`,
  ].join('\n');
}

/** The instructions and the SDK declaration for a list of visible tools. */
export function renderSdkInstructions(schemas: readonly ToolSchema[]): string {
  const lines = [
    `## Calling tools with ${RUN_CODE_TOOL_NAME}`,
    '',
    `Call \`${RUN_CODE_TOOL_NAME}\` with two required arguments: \`code\`, the program, and \`description\`, a short label of what it does.`,
    '',
    '`code` is the BODY of an async TypeScript function:',
    '- Call tools with `await tools.name(args)`; a name that is not an identifier works as `await tools["my-tool"](args)`.',
    '- A failed tool call rejects with a `ToolCallError` whose `toolName` names the tool; catch it when the program should go on.',
    '- Only what the program returns, or logs with `console.log`, comes back to you: return or log just what you need, not raw tool output.',
    '- Independent read-only calls may overlap under `Promise.all`; calls that change things run alone, in the order you make them; sequence dependent work with `await`.',
    '- Each run starts with fresh state: nothing survives from one run to the next.',
    '- Types are erased before the program runs; enums, namespaces and parameter properties are not supported.',
    '- The declarations below are bindings that exist only inside programs, not tools you can call directly.',
  ];
  const bash = schemas.find((t) => t.name === 'bash');
  if (bash && compileSchema(bash.inputSchema, 'bash input schema')(BASH_EXAMPLE_ARGS).length === 0) {
    const example = {
      code: BASH_EXAMPLE_CODE,
      description: 'List the workspace',
    };
    lines.push('', `Example: a complete \`${RUN_CODE_TOOL_NAME}\` call that wraps bash:`, '', '```json', JSON.stringify(example, null, 2), '```');
  }
  lines.push('', '```ts', renderTypeScriptSdk(schemas).trimEnd(), '```');
  return lines.join('\n');
}
