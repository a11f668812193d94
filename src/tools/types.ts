// The shape of a tool and of one call through the pipeline. Pure types; defineTool lives in define-tool.ts.

import type { Context } from '../context/context.js';
import type { ErrorInfo } from '../errors.js';
import type { JsonSchema, JsonValue } from '../json.js';
import type { ParsingSchema } from './parsing-schema.js';
import type { SpillStore } from './spill.js';

/** Identifies the outer call of a nested call (a program's sub-call carries its run_code call here). */
export interface ToolCallRef {
  readonly id: string;
  readonly name: string;
}

/** Extra context a tool result asks the loop to append after the step (deferred contexts, docs/ptc-mode.md). */
export interface DeferredContext {
  readonly source: string;
  readonly text: string;
}

/** What a tool body receives besides its arguments. */
export interface ToolExecContext {
  /** Aborted when the caller gives up (outer abort, program settlement, deadline). */
  readonly signal: AbortSignal;
  /** This call's id, unique within its session (`<parent>:ptc:<n>` for program sub-calls). */
  readonly callId: string;
  /** The outer call when this call was made from inside another tool (a run_code program). */
  readonly parent?: ToolCallRef;
  /** Queue context for the loop to append after the step's results. */
  deferContext(entry: DeferredContext): void;
  /** The scope the call runs in (set by the registry; tools that make nested calls use it). */
  readonly scope?: Context;
  /**
   * The running session's spill store, when the call belongs to one (docs/sessions.md, "Spill"):
   * `bash` spills its streams there, `read` may read its directory, nested calls inherit it.
   */
  readonly spill?: SpillStore;
}

/** The outcome of one call as the pipeline reports it. It never throws for a tool failure. */
export interface ToolCallResult {
  /** The tool's canonical JSON value; absent on error or when the tool returned nothing. */
  readonly value?: JsonValue;
  /** What the model sees (native presentation) and what logs record. */
  readonly content: string;
  readonly isError: boolean;
  readonly error?: ErrorInfo;
  /** Contexts deferred by this call (and, for run_code, by its sub-calls in dispatch order). */
  readonly deferredContexts?: readonly DeferredContext[];
}

/**
 * A tool as the registry takes it: JSON Schemas for the wire, optional parsing schemas (zod) for
 * the values, and the body. `defineTool` builds one from zod schemas or checks a hand-written one.
 * `Input` is the type of an argument object as the model sends it (examples have it); `Args` is
 * what the body receives once parsed.
 */
export interface ToolDefinition<Args = never, Output extends JsonValue = JsonValue, Input = Args> {
  /** Any non-empty string; the SDK reaches every name through a quoted key. */
  readonly name: string;
  readonly description: string;
  /**
   * JSON Schema of the arguments, validated with ajv before the body runs; 2020-12 unless its
   * `$schema` declares draft-06, draft-07 or 2019-09 (docs/defining-tools.md).
   */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the canonical value; types the SDK's return and is checked after the body runs. */
  readonly outputSchema?: JsonSchema;
  /** Parses the arguments once `inputSchema` accepted them; the body receives the parsed value. */
  readonly input?: ParsingSchema;
  /** Parses the body's value once `outputSchema` accepted it; its result is the call's value. */
  readonly output?: ParsingSchema;
  /**
   * Argument objects that show a typical call; each must satisfy the input schema (checked at
   * registration). The ptc prompt's example call is built from the first tool that has any.
   */
  readonly examples?: readonly Input[];
  /** True only when concurrent calls cannot interfere (reads). Missing means exclusive. */
  readonly isConcurrencySafe?: boolean;
  execute(args: Args, exec: ToolExecContext): Promise<Output> | Output;
  /** Renders the canonical value as model-visible text; default: strings raw, else pretty JSON. */
  renderContent?(value: Output): string;
  /** Last word on the content after post-execute hooks (e.g. a truncation note). */
  finalizeContent?(result: ToolCallResult): string;
}

/** A tool definition with its argument and output types erased, as the registry stores it. */
export interface AnyToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly input?: ParsingSchema;
  readonly output?: ParsingSchema;
  readonly examples?: readonly unknown[];
  readonly isConcurrencySafe?: boolean;
  execute(args: never, exec: ToolExecContext): Promise<JsonValue> | JsonValue;
  renderContent?(value: never): string;
  finalizeContent?(result: ToolCallResult): string;
}

/** The part of a tool the model sees: what the native schemas and the SDK are rendered from. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
}

export { defineTool, type ZodToolInit, type ZodToolOutput } from './define-tool.js';
