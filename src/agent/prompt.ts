// Prompt assembly: ordered sections plus the scope's wire tools, passed through the
// `system-prompt/assemble` waterfall. The returned assembly is final: whatever it holds is what is
// sent and what is logged.

import type { Context } from '../context/context.js';
import { ConfigError } from '../errors.js';
import { renderPtcOnlySection, renderSdkSection, PTC_ONLY_SECTION_ID, SDK_SECTION_ID } from '../ptc/prompt-sections.js';
import { compareNames } from '../tools/tool-runtime.js';
import type { ToolSchema } from '../tools/types.js';
import { SECTION_ORDER, type PromptAssembly, type PromptSection } from '../system-prompt.js';
import { loadWorkspaceInstructions, renderWorkspaceSection, type WorkspaceInstructions } from './workspace-instructions.js';

// The contract (sections, order bands, the event) is below the agent, for the features that add a
// section (docs/architecture.md, "Layers"); re-exported here for the library's agent entry.
export { SECTION_ORDER, type AssembleInfo, type PromptAssembly, type PromptSection } from '../system-prompt.js';

export const BASE_INSTRUCTIONS = [
  'You are a coding agent working in a local workspace. Use the tools to inspect files, change them and run commands;',
  'prefer reading before writing, keep changes minimal, and check your work. When the task is done, reply with a short',
  'final answer and no tool call.',
].join(' ');

export interface AssembleOptions {
  readonly scope: Context;
  readonly step: number;
  readonly cwd: string;
  /**
   * Tool names to put first on the wire, in this order (the rest follow by name). Every name must be
   * a wire tool of the scope's mode: under ptc that is only run_code, so an order naming native
   * tools fails assembly with CONFIG — update or drop it when switching a deployment to ptc.
   */
  readonly toolOrder?: readonly string[];
  /**
   * The workspace's AGENTS.md/CLAUDE.md as the session loaded it once (`loadWorkspaceInstructions`),
   * or `false` for none. Absent: read from `cwd` now.
   */
  readonly instructions?: WorkspaceInstructions | false;
}

/** Builds the default assembly for a scope, then lets listeners rewrite it. */
export async function assemblePrompt(options: AssembleOptions): Promise<PromptAssembly> {
  const { scope } = options;
  const tools = scope.tools;
  const instructions = options.instructions ?? loadWorkspaceInstructions(options.cwd);
  const sections: PromptSection[] = [
    { id: 'base', order: SECTION_ORDER.base, text: BASE_INSTRUCTIONS },
    { id: SDK_SECTION_ID, order: SECTION_ORDER.toolGuidance, text: renderSdkSection(tools, scope) },
    { id: PTC_ONLY_SECTION_ID, order: SECTION_ORDER.toolGuidance + 1, text: renderPtcOnlySection(tools, scope) },
    {
      id: 'workspace',
      order: SECTION_ORDER.workspace,
      text: renderWorkspaceSection(options.cwd, instructions === false ? undefined : instructions),
    },
  ];
  const wire = orderTools(tools.wireTools(scope), options.toolOrder ?? [], tools.modeFor(scope));
  const initial: PromptAssembly = { sections: sections.filter((s) => s.text !== ''), tools: wire };
  return scope.waterfall('system-prompt/assemble', initial, { scope, step: options.step });
}

function orderTools(wire: ToolSchema[], order: readonly string[], mode: string): ToolSchema[] {
  if (order.length === 0) return wire;
  const names = new Set(wire.map((t) => t.name));
  const offending = order.filter((name) => !names.has(name));
  if (offending.length > 0) {
    throw new ConfigError(
      `toolOrder names ${offending.map((n) => JSON.stringify(n)).join(', ')}, which ${offending.length === 1 ? 'is' : 'are'} not ` +
        `sent on the wire in ${mode} mode (wire tools: ${[...names].join(', ') || 'none'}). Update toolOrder or drop it.`,
    );
  }
  const rank = new Map(order.map((name, i) => [name, i]));
  return [...wire].sort((a, b) => (rank.get(a.name) ?? order.length) - (rank.get(b.name) ?? order.length));
}

/** The system prompt text of an assembly: non-empty sections by order, then id. */
export function renderSystemPrompt(assembly: PromptAssembly): string {
  return [...assembly.sections]
    .filter((s) => s.text.trim() !== '')
    .sort((a, b) => a.order - b.order || compareNames(a.id, b.id))
    .map((s) => s.text.trim())
    .join('\n\n');
}
