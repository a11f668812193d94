// How a built-in tool gets its schemas from its zod contract (src/builtin-tools/contracts/,
// docs/builtin-tools.md): the JSON Schemas the model sees come from schemas.generated.ts, which the
// build writes from the contracts; the contract itself is imported at the tool's first call, to parse
// its arguments after ajv. Its TypeScript types come from the same contract, as types only.

import type { z } from 'zod';
import type { JsonSchema } from '../json.js';
import { lazyParsingSchema } from '../tools/lazy-parsing-schema.js';
import type { ParsingSchema } from '../tools/parsing-schema.js';
import { BUILTIN_SCHEMAS, type BuiltinContractName } from './contracts/schemas.generated.js';

export type { BuiltinContractName } from './contracts/schemas.generated.js';

/** A contract module: its zod `input` (the arguments) and `output` (the value). */
export interface ContractModule {
  readonly input: z.ZodType;
  readonly output: z.ZodType;
}

/** The arguments a tool body receives (parsed). */
export type ArgsOf<M extends ContractModule> = z.output<M['input']>;
/** An argument object as the model sends it (examples have this type). */
export type InputOf<M extends ContractModule> = z.input<M['input']>;
/** The tool's value. */
export type ValueOf<M extends ContractModule> = z.output<M['output']>;

/** The part of a definition a contract gives: wire schemas and the argument parser. */
export interface ContractSchemas {
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly input: ParsingSchema;
}

/**
 * The wire schemas of contract `name` and a parser that imports the contract (`load`, an `import()`
 * of its file) at the first call. The value is checked against the output schema by ajv, as for any
 * tool; our own bodies build it, so it is not parsed a second time.
 */
export function contractSchemas(name: BuiltinContractName, load: () => Promise<ContractModule>): ContractSchemas {
  const wire = BUILTIN_SCHEMAS[name];
  return { inputSchema: wire.input, outputSchema: wire.output, input: lazyParsingSchema(async () => (await load()).input) };
}

/**
 * `schema` with keywords of one property replaced: for the few arguments whose description or bounds
 * name an option of the tool (bash's default deadline, a code runtime's deadline bounds). The values
 * come from what the contract's `inputFor(option)` uses, so the result is what the contract gives for
 * that option (src/builtin-tools/contracts/contracts.test.ts).
 */
export function withProperty(schema: JsonSchema, property: string, changes: Readonly<Record<string, unknown>>): JsonSchema {
  if (typeof schema !== 'object') return schema;
  const properties = schema['properties'] as Readonly<Record<string, JsonSchema>> | undefined;
  const current = properties?.[property];
  if (properties === undefined || current === undefined || typeof current !== 'object') return schema;
  return { ...schema, properties: { ...properties, [property]: { ...current, ...changes } } };
}
