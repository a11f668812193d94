// What a program language is to the harness: one object per language (docs/language-packs.md). Its
// SDK flavour (how the tools are declared to the model), its prompt words (how run_code is
// explained), its files (extensions, `--lang` values) and its runtime (how a program of it runs in
// a sandboxed child) all come from here; the core asks the pack of the runtime's `language` and
// knows no language by name. Adding a language is a folder under src/languages/ and a row in
// src/languages/table.ts.

import type { JsonValue } from '../json.js';
import type { ProcessRuntimeOptions } from '../ptc-runtime-process/options.js';
import type { ProgramExecution, PtcRuntime } from '../ptc-runtime/types.js';
import type { ToolSchema } from '../tools/types.js';

/** One tool's example arguments, shown in the prompt as a complete run_code call. */
export interface PromptExample {
  readonly tool: string;
  readonly args: JsonValue;
}

export interface LanguagePack {
  /** The runtime's `language` for programs of this pack, and its key in the table: `typescript`, `python`. */
  readonly id: string;
  /** The language's name in prose: `TypeScript`, `Python`. */
  readonly name: string;
  /** The file extensions of its programs and workflows, lower case, with the dot; the first is the one written. */
  readonly extensions: readonly string[];
  /** The `--lang` values that name it (`ts`, `typescript`), lower case. */
  readonly flags: readonly string[];
  /** What starts a line comment (a workflow file's header lines). */
  readonly lineComment: string;
  readonly sdk: PackSdk;
  readonly prompt: PackPrompt;
  /**
   * A runtime for its programs with the given process options (the harness's sandbox mode, deadline,
   * pool). Loaded on first use, so reading a pack's words loads no runtime.
   */
  createRuntime(options: ProcessRuntimeOptions): Promise<PtcRuntime>;
  /** The preset row that provides its runtime (`node-runtime`), when one is shipped. */
  readonly runtimeRow?: string;
}

/** How the tools are declared to the model in this language. */
export interface PackSdk {
  /** The SDK text for the visible tools (also what `sdk.describe` returns for the named ones). */
  render(tools: readonly ToolSchema[]): string;
  /** The declarations of `tools` and `sdk` shown instead of the SDK when a large catalog gets its index. */
  readonly bindingDeclaration: string;
  /** The code fence's info string around SDK text: `ts`, `python`. */
  readonly fence: string;
}

/** The language's words in the `tools:sdk` prompt section and in run_code's description. */
export interface PackPrompt {
  /** The lines after "Call run_code with ...": what `code` is, how to call tools, what comes back. */
  instructions(execution: ProgramExecution | undefined): readonly string[];
  /** The lines that say how to work from the tool index of a large catalog (docs/large-catalogs.md). */
  indexInstructions(count: number): readonly string[];
  /** A program that makes the example call and returns its value. */
  exampleProgram(example: PromptExample): string;
  /** run_code's description for a runtime of this language. */
  runCodeDescription(execution: ProgramExecution): string;
  /** run_code's `code` argument description, when it differs from the built-in schema's. */
  readonly codeArgumentDescription?: string;
}
