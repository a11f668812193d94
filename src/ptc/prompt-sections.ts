// The prompt sections of PTC mode: `tools:sdk` (the generated SDK plus how to call run_code) and
// `tools:ptc-only` (native tool names in the prompt are reachable only inside programs). Both render
// empty — and are dropped — in native scopes; both are byte-stable for provider prompt caching.

import { quoteString } from '../codegen/ts-syntax.js';
import type { Context } from '../context/context.js';
import type { JsonValue } from '../json.js';
import type { PromptExample } from '../languages/language-pack.js';
import { languagePackOr } from '../languages/table.js';
import type { ProgramExecution, PtcLanguage } from '../ptc-runtime/types.js';
import { RUN_CODE_TOOL_NAME, type ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolSchema } from '../tools/types.js';
import { renderCatalogIndex, sdkPresentationFor, type SdkPresentation } from './catalog-index.js';

export const SDK_SECTION_ID = 'tools:sdk';
export const PTC_ONLY_SECTION_ID = 'tools:ptc-only';

export type { PromptExample };

/** Which flavour of the section to render: the loaded runtime's language and execution mode. */
export interface SdkFlavour {
  /** A language pack's id (src/languages/table.ts); TypeScript when absent or unknown. */
  readonly language?: PtcLanguage;
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
  const pack = languagePackOr(options.language);
  const lines = [
    `## Calling tools with ${RUN_CODE_TOOL_NAME}`,
    '',
    `Call \`${RUN_CODE_TOOL_NAME}\` with two required arguments: \`code\`, the program, and \`description\`, a short label of what it does.`,
    '',
    ...pack.prompt.instructions(options.execution),
    ...(options.approvals === true ? [APPROVALS_LINE] : []),
  ];
  const indexed = (options.presentation ?? sdkPresentationFor(schemas)) === 'index';
  if (indexed) lines.push(...pack.prompt.indexInstructions(schemas.length));
  if (example) {
    const call = { code: pack.prompt.exampleProgram(example), description: exampleDescription(example) };
    lines.push('', `Example: a complete \`${RUN_CODE_TOOL_NAME}\` call that wraps ${promptName(example.tool)}:`, '', '```json', JSON.stringify(call, null, 2), '```');
  }
  const fence = `\`\`\`${pack.sdk.fence}`;
  if (!indexed) lines.push('', fence, pack.sdk.render(schemas).trimEnd(), '```');
  else lines.push('', fence, pack.sdk.bindingDeclaration, '```', '', '## Tool index', '', renderCatalogIndex(schemas));
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

/** The run_code label: the example's own `description` argument when it has one (bash does). */
function exampleDescription({ tool, args }: PromptExample): string {
  const own = typeof args === 'object' && args !== null && !Array.isArray(args) ? args.description : undefined;
  return typeof own === 'string' && own.trim() !== '' ? own : `Call ${tool}`;
}
