// defineTool: one tool from zod schemas (types inferred, wire JSON Schema generated) or from JSON
// Schema (types from generics). docs/defining-tools.md explains both forms.

import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { JsonSchema, JsonValue } from '../json.js';
import { isParsingSchema } from './parsing-schema.js';
import type { ToolCallResult, ToolDefinition, ToolExecContext } from './types.js';
import { wireSchema } from './wire-schema.js';

type ZodSchema = z.core.$ZodType;

/** A value type that is JSON stays itself; anything else (e.g. `unknown`) is checked as JsonValue. */
type JsonOr<T> = [T] extends [JsonValue] ? T : JsonValue;

/** What a zod tool's body returns: the parsed type of `output`, or any JSON without one. */
export type ZodToolOutput<O> = [O] extends [ZodSchema] ? JsonOr<z.output<O>> : JsonValue;

/**
 * A tool described by zod schemas. `execute` receives the arguments as `input` parses them (so
 * `.default()` fields are filled in and not optional); it must return what `output` describes.
 */
export interface ZodToolInit<I extends ZodSchema, O extends ZodSchema | undefined = undefined> {
  readonly name: string;
  readonly description: string;
  /** The arguments. The model sees its input side as JSON Schema (a defaulted field is optional). */
  readonly input: I;
  /** The value; checked (and parsed) after the body runs, and types the SDK's return. */
  readonly output?: O;
  /** JSON Schema belongs to the other form of defineTool. */
  readonly inputSchema?: never;
  readonly outputSchema?: never;
  /** Argument objects as the model would send them; the ptc prompt's example comes from the first tool with any. */
  readonly examples?: readonly z.input<I>[];
  /** True only when concurrent calls cannot interfere (reads). Missing means exclusive. */
  readonly isConcurrencySafe?: boolean;
  // Properties rather than methods: their parameters are checked strictly, so an `execute` whose
  // argument type contradicts `input` does not compile.
  readonly execute: (args: z.output<I>, exec: ToolExecContext) => Promise<ZodToolOutput<O>> | ZodToolOutput<O>;
  readonly renderContent?: (value: ZodToolOutput<O>) => string;
  readonly finalizeContent?: (result: ToolCallResult) => string;
}

/** Defines a tool from zod schemas; the argument and value types come from them. Throws CONFIG when malformed. */
export function defineTool<I extends ZodSchema, O extends ZodSchema | undefined = undefined>(
  def: ZodToolInit<I, O>,
): ToolDefinition<z.output<I>, ZodToolOutput<O>, z.input<I>>;
/**
 * Defines a tool from JSON Schema; the argument type comes from the generics (JsonValue without
 * them). Checks the static shape and returns it frozen; throws CONFIG for a malformed definition.
 */
export function defineTool<Args = JsonValue, Output extends JsonValue = JsonValue, Input = Args>(
  def: ToolDefinition<Args, Output, Input>,
): ToolDefinition<Args, Output, Input>;
export function defineTool(def: unknown): unknown {
  if (typeof def !== 'object' || def === null) throw new ConfigError('defineTool expects an object.');
  const d = def as Readonly<Record<string, unknown>>;
  const where = typeof d.name === 'string' && d.name ? `tool "${d.name}"` : 'a tool definition';
  if (typeof d.name !== 'string' || d.name.length === 0) {
    throw new ConfigError(`${where}: name must be a non-empty string.`);
  }
  if (typeof d.description !== 'string') throw new ConfigError(`${where}: description must be a string.`);

  let inputSchema = d.inputSchema;
  let outputSchema = d.outputSchema;
  if (inputSchema === undefined && d.input !== undefined) {
    if (!isZodSchema(d.input)) {
      throw new ConfigError(`${where}: input must be a zod schema (zod 4); for a JSON Schema use inputSchema instead.`);
    }
    if (outputSchema !== undefined) {
      throw new ConfigError(`${where}: with a zod input, give the output as a zod schema in output, not as outputSchema.`);
    }
    if (d.output !== undefined && !isZodSchema(d.output)) {
      throw new ConfigError(`${where}: output must be a zod schema (zod 4) when input is one.`);
    }
    inputSchema = wireSchema(d.input, 'input', where);
    if (d.output !== undefined) outputSchema = wireSchema(d.output, 'output', where);
  }
  if (!isSchema(inputSchema)) {
    throw new ConfigError(`${where}: give the arguments as a zod schema in input or as a JSON Schema object in inputSchema.`);
  }
  if (outputSchema !== undefined && !isSchema(outputSchema)) {
    throw new ConfigError(`${where}: outputSchema must be a JSON Schema object when given.`);
  }
  for (const key of ['input', 'output'] as const) {
    if (d[key] !== undefined && !isParsingSchema(d[key])) {
      throw new ConfigError(`${where}: ${key} must be a zod schema (or another schema with the Standard Schema "~standard" interface).`);
    }
  }
  if (d.examples !== undefined && !Array.isArray(d.examples)) {
    throw new ConfigError(`${where}: examples must be an array of argument objects.`);
  }
  if (typeof d.execute !== 'function') throw new ConfigError(`${where}: execute must be a function.`);
  return Object.freeze({ ...d, inputSchema, ...(outputSchema !== undefined ? { outputSchema } : {}) });
}

/** True for a zod 4 schema, whichever copy of zod made it (a plugin may bring its own). */
function isZodSchema(value: unknown): value is ZodSchema {
  if (typeof value !== 'object' || value === null) return false;
  const internals = (value as { _zod?: unknown })._zod;
  return typeof internals === 'object' && internals !== null && 'def' in internals;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}
