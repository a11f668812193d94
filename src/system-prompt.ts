// The system prompt's contract: sections in order bands, and the `system-prompt/assemble` event
// through which the features that add a section (Skills, plan mode) and the agent that renders the
// prompt (src/agent/prompt.ts) meet without importing each other (docs/architecture.md, "Layers").

import type { Context } from './context/context.js';
import type { ToolSchema } from './tools/types.js';

export interface PromptSection {
  /** Stable id, e.g. `base`, `tools:sdk`, `workspace`. */
  readonly id: string;
  /** Position band; lower renders first (ties broken by id). */
  readonly order: number;
  readonly text: string;
}

export interface PromptAssembly {
  readonly sections: readonly PromptSection[];
  /** The tools sent on the wire, in order. */
  readonly tools: readonly ToolSchema[];
}

export interface AssembleInfo {
  readonly scope: Context;
  readonly step: number;
}

declare module './context/context.js' {
  interface Events {
    /** Listeners may add, remove or replace sections and tools; the returned assembly is final. */
    'system-prompt/assemble'(assembly: PromptAssembly, info: AssembleInfo): PromptAssembly | undefined | Promise<PromptAssembly | undefined>;
  }
}

/** Section order bands. */
export const SECTION_ORDER = { base: 0, toolGuidance: 100, workspace: 200 } as const;
