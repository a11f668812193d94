// The shape of a tool and of one call through the pipeline. Pure types plus defineTool.

import type { Context } from '../context/context.js';
import { ConfigError, type ErrorInfo } from '../errors.js';
import type { JsonSchema, JsonValue } from '../json.js';

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

export interface ToolDefinition<Args = never, Output extends JsonValue = JsonValue> {
  /** Any non-empty string; the SDK reaches every name through a quoted key. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (2020-12 subset); validated with ajv before the body runs. */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the canonical value; types the SDK's return and is checked after the body runs. */
  readonly outputSchema?: JsonSchema;
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

/** Checks the static shape of a definition and returns it frozen; throws CONFIG for a malformed one. */
export function defineTool<Args, Output extends JsonValue>(
  def: ToolDefinition<Args, Output>,
): ToolDefinition<Args, Output> {
  const where = typeof def?.name === 'string' && def.name ? `tool "${def.name}"` : 'a tool definition';
  if (typeof def !== 'object' || def === null) throw new ConfigError('defineTool expects an object.');
  if (typeof def.name !== 'string' || def.name.length === 0) {
    throw new ConfigError(`${where}: name must be a non-empty string.`);
  }
  if (typeof def.description !== 'string') throw new ConfigError(`${where}: description must be a string.`);
  if (!isSchema(def.inputSchema)) throw new ConfigError(`${where}: inputSchema must be a JSON Schema object.`);
  if (def.outputSchema !== undefined && !isSchema(def.outputSchema)) {
    throw new ConfigError(`${where}: outputSchema must be a JSON Schema object when given.`);
  }
  if (typeof def.execute !== 'function') throw new ConfigError(`${where}: execute must be a function.`);
  return Object.freeze({ ...def });
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}
