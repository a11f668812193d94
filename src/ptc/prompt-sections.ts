// The prompt sections of PTC mode: `tools:sdk` (the generated SDK plus how to call run_code) and
// `tools:ptc-only` (native tool names in the prompt are reachable only inside programs). Both render
// empty — and are dropped — in native scopes; both are byte-stable for provider prompt caching.

import { PYTHON_SDK_BINDING_DECLARATION, renderPythonSdk, renderTypeScriptSdk, type SdkLanguage } from '../codegen/index.js';
import { isPythonIdentifier, pyString } from '../languages/python/sdk/python-syntax.js';
import { propertyKey, quoteString } from '../codegen/ts-syntax.js';
import type { Context } from '../context/context.js';
import type { JsonValue } from '../json.js';
import type { ProgramExecution } from '../ptc-runtime/types.js';
import { RUN_CODE_TOOL_NAME, type ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolSchema } from '../tools/types.js';
import { renderCatalogIndex, sdkPresentationFor, type SdkPresentation } from './catalog-index.js';
import { SDK_BINDING_DECLARATION } from './sdk-binding.js';

export const SDK_SECTION_ID = 'tools:sdk';
export const PTC_ONLY_SECTION_ID = 'tools:ptc-only';

/** One tool's example arguments, shown in the prompt as a complete run_code call. */
export interface PromptExample {
  readonly tool: string;
  readonly args: JsonValue;
}

/** Which flavour of the section to render: the loaded runtime's language and execution mode. */
export interface SdkFlavour {
  readonly language?: SdkLanguage;
  readonly execution?: ProgramExecution;
  /**
   * A person approves changes (`--approve writes|all`): programs then run with the workspace
   * read-only (docs/approvals.md, "Programs"), which the model is told so it writes through tools.
   */
  readonly approvals?: boolean;
}

/**
 * The `tools:sdk` section for a scope; empty in native scopes. It follows the language and execution
 * mode of the runtime loaded in `scope` (TypeScript, stateless without one); `flavour` overrides
 * them (`ptc sdk --lang py`).
 */
export function renderSdkSection(tools: ToolRuntime, scope?: Context, flavour: SdkFlavour = {}): string {
  if (tools.modeFor(scope) !== 'ptc') return '';
  const schemas = tools.schemas(scope);
  return renderSdkInstructions(schemas, firstExample(tools, schemas, scope), { ...runtimeFlavour(scope), ...flavour });
}

/** The language and execution mode of the runtime loaded in `scope`. */
export function runtimeFlavour(scope?: Context): SdkFlavour {
  const approvals = scope?.get('approvals');
  const approved = approvals !== undefined && approvals.policy !== 'never' ? { approvals: true } : {};
  const runtime = scope?.get('ptcRuntime');
  if (runtime === undefined) return approved;
  return { language: runtime.language, ...(runtime.execution === undefined ? {} : { execution: runtime.execution }), ...approved };
}

/**
 * The first example of the first visible tool (by name, so the prompt stays byte-stable) that has
 * any; the registry checked it against the tool's input schema at registration.
 */
export function firstExample(tools: ToolRuntime, schemas: readonly ToolSchema[], scope?: Context): PromptExample | undefined {
  for (const { name } of schemas) {
    const examples = tools.get(name, scope)?.examples;
    if (examples && examples.length > 0) return { tool: name, args: examples[0] as JsonValue };
  }
  return undefined;
}

/** The `tools:ptc-only` section for a scope; empty in native scopes. */
export function renderPtcOnlySection(tools: ToolRuntime, scope?: Context): string {
  if (tools.modeFor(scope) !== 'ptc') return '';
  const schemas = tools.schemas(scope);
  // A large catalog's names are already in the tool index; listing them twice would undo its saving.
  const names = sdkPresentationFor(schemas) === 'index' ? [] : schemas.map((t) => t.name);
  return [
    '## Tools are reachable only inside run_code',
    '',
    `The only tool you can call directly is \`${RUN_CODE_TOOL_NAME}\`. Every other tool named anywhere in this prompt` +
      (names.length > 0 ? ` (${names.map((n) => `\`${promptName(n)}\``).join(', ')})` : schemas.length > 0 ? ' (every tool of the tool index)' : '') +
      ` exists only as a binding inside your programs: call it as \`await tools.<name>(args)\` in the \`code\` of a` +
      ` \`${RUN_CODE_TOOL_NAME}\` call. A direct call of such a name fails as an unknown tool.`,
  ].join('\n');
}

/**
 * The instructions and the SDK declaration for a list of visible tools, with an example call when
 * given one. A large catalog gets the tool index and the `sdk` binding instead of every declaration;
 * `options.presentation` forces one form (the bench compares both).
 */
export function renderSdkInstructions(
  schemas: readonly ToolSchema[],
  example?: PromptExample,
  options: { readonly presentation?: SdkPresentation } & SdkFlavour = {},
): string {
  const python = options.language === 'python';
  const lines = [
    `## Calling tools with ${RUN_CODE_TOOL_NAME}`,
    '',
    `Call \`${RUN_CODE_TOOL_NAME}\` with two required arguments: \`code\`, the program, and \`description\`, a short label of what it does.`,
    '',
    ...(python ? pythonInstructions(options.execution) : typeScriptInstructions(options.execution)),
    ...(options.approvals === true ? [APPROVALS_LINE] : []),
  ];
  const indexed = (options.presentation ?? sdkPresentationFor(schemas)) === 'index';
  if (indexed) lines.push(...(python ? pythonIndexInstructions(schemas.length) : indexInstructions(schemas.length)));
  if (example) {
    const call = { code: python ? examplePython(example) : exampleCode(example), description: exampleDescription(example) };
    lines.push('', `Example: a complete \`${RUN_CODE_TOOL_NAME}\` call that wraps ${promptName(example.tool)}:`, '', '```json', JSON.stringify(call, null, 2), '```');
  }
  const fence = python ? '```python' : '```ts';
  if (!indexed) lines.push('', fence, (python ? renderPythonSdk(schemas) : renderTypeScriptSdk(schemas)).trimEnd(), '```');
  else {
    const declaration = python ? PYTHON_SDK_BINDING_DECLARATION : SDK_BINDING_DECLARATION;
    lines.push('', fence, declaration, '```', '', '## Tool index', '', renderCatalogIndex(schemas));
  }
  return lines.join('\n');
}

/**
 * A tool name as prose in the prompt shows it: bare when plain, else a one-line quoted string, so no
 * name (a plugin's; MCP names are checked at the client) starts a line or a section of its own.
 */
function promptName(name: string): string {
  return /^[A-Za-z0-9_.$-]+$/.test(name) ? name : quoteString(name);
}

/** Under approvals a program's own writes to the workspace fail (EROFS); the tools that write ask the user. */
const APPROVALS_LINE =
  '- The user approves changes here, so a program may find the workspace read-only (its own file writes and child processes fail with EROFS; /tmp stays writable): change files through the tools that write, which ask the user first.';

/** What survives between runs, in the words of either flavour. */
function stateLine(execution: ProgramExecution | undefined, names: string): string {
  return execution === 'in-memory'
    ? `- Memory is kept between runs of this conversation: ${names} defined at the top level of one program are visible to the next, until the memory is reset (a timeout, a crash, a long pause; the next run then says so). Tool results are never cached: call again for fresh data.`
    : '- Each run starts with fresh state: nothing survives from one run to the next.';
}

function typeScriptInstructions(execution: ProgramExecution | undefined): string[] {
  return [
    '`code` is the BODY of an async TypeScript function:',
    '- Call tools with `await tools.name(args)`; a name that is not an identifier works as `await tools["my-tool"](args)`.',
    '- A failed tool call rejects with a `ToolCallError` whose `toolName` names the tool; catch it when the program should go on.',
    '- Only what the program returns, or logs with `console.log`, comes back to you: return or log just what you need, not raw tool output.',
    '- Independent read-only calls may overlap under `Promise.all`; calls that change things run alone, in the order you make them; sequence dependent work with `await`.',
    stateLine(execution, 'variables and functions'),
    '- Types are erased before the program runs; enums, namespaces and parameter properties are not supported.',
    '- The declarations below are bindings that exist only inside programs, not tools you can call directly.',
  ];
}

function pythonInstructions(execution: ProgramExecution | undefined): string[] {
  return [
    '`code` is the BODY of an async Python function (Python 3, standard library only): top-level `await` and `return` work; do not call `asyncio.run`.',
    '- Call tools with `await tools.name({"arg": value})`: one dict of arguments, keys exactly as declared; a name that is not an identifier works as `await tools["my-tool"]({...})`.',
    '- A failed tool call raises `ToolCallError`, whose `tool_name` names the tool and `code` is the error code; catch it when the program should go on.',
    '- Only what the program returns, or prints (`print`, `logging`), comes back to you: return or print just what you need, not raw tool output. Return JSON-serialisable values (dict, list, str, int, float, bool, None).',
    '- Independent read-only calls may overlap under `asyncio.gather`; calls that change things run alone, in the order you make them; sequence dependent work with `await`.',
    stateLine(execution, 'variables, functions and imports'),
    '- The declarations below are bindings that exist only inside programs, not tools you can call directly.',
  ];
}

/** The index instructions in Python's idiom (docs/large-catalogs.md). */
function pythonIndexInstructions(count: number): string[] {
  return [
    `- There are ${count} tools, too many to declare here: the tool index at the end lists each one's name, argument names and the first sentence of its description, grouped by server.`,
    '- Before calling a tool whose arguments or result you are not sure of, get its declaration inside a program: `print(await sdk.describe(["name1", "name2"]))` (Python declarations: `TypedDict`s and `async def` stubs, as in a full SDK), then use it in your next program.',
    '- To find tools for a task, `return await sdk.search("a few words", limit=10)` lists matching tools, best first, with their signatures and summaries.',
    '- `sdk` calls are answered at once and are not tool calls; every tool works as `await tools.name({...})` whether or not you described it.',
  ];
}

/** How to work from the index instead of declarations (docs/large-catalogs.md). */
function indexInstructions(count: number): string[] {
  return [
    `- There are ${count} tools, too many to declare here: the tool index at the end lists each one's name, argument names and the first sentence of its description, grouped by server.`,
    '- Before calling a tool whose arguments or result you are not sure of, get its TypeScript declaration inside a program: `console.log(await sdk.describe(["name1", "name2"]))`, then use it in your next program.',
    '- To find tools for a task, `return await sdk.search({ query: "a few words", limit: 10 })` lists matching tools, best first, with their signatures and summaries.',
    '- `sdk` calls are answered at once and are not tool calls; every tool works as `await tools.<name>(args)` whether or not you described it.',
  ];
}

/** A program that makes the example call and returns its value. */
function exampleCode({ tool, args }: PromptExample): string {
  const member = propertyKey(tool) === tool ? `.${tool}` : `[${quoteString(tool)}]`;
  return `const result = await tools${member}(${literal(args)});\nreturn result;`;
}

/** The example call as a Python program body. */
function examplePython({ tool, args }: PromptExample): string {
  const member = isPythonIdentifier(tool) && !tool.startsWith('__') ? `.${tool}` : `[${pyString(tool)}]`;
  return `result = await tools${member}(${pyLiteral(args)})\nreturn result`;
}

/** A one-line Python literal of a JSON value. */
function pyLiteral(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([key, v]) => `${pyString(key)}: ${pyLiteral(v)}`).join(', ')}}`;
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return value === null ? 'None' : JSON.stringify(value);
}

/** The run_code label: the example's own `description` argument when it has one (bash does). */
function exampleDescription({ tool, args }: PromptExample): string {
  const own = typeof args === 'object' && args !== null && !Array.isArray(args) ? args.description : undefined;
  return typeof own === 'string' && own.trim() !== '' ? own : `Call ${tool}`;
}

/** A one-line TypeScript literal of a JSON value, keys bare where they can be. */
function literal(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, v]) => `${propertyKey(key)}: ${literal(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return typeof value === 'string' ? quoteString(value) : JSON.stringify(value);
}
