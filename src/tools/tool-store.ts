// The registry's state, shared by every context's view of the `tools` service: the compiled tool
// entries, the scoped visibility layers, guards and presentation declarations, and the PTC transport.
// Registration compiles a definition's schemas once (or defers them for a vetted one).

import { ConfigError } from '../errors.js';
import { checkJson } from '../json.js';
import type { Context, Disposer } from '../context/context.js';
import { isParsingSchema, parseNow } from './parsing-schema.js';
import { compileSchema, deferSchema, type SchemaValidator } from './schema-validator.js';
import type { PresentationMode, ToolFilter, ToolGuard } from './tool-calls.js';
import type { AnyToolDefinition, ToolSchema } from './types.js';
import { schemasVetted } from './vetted-schemas.js';

export interface Entry {
  readonly def: AnyToolDefinition;
  readonly validateArgs: SchemaValidator;
  readonly validateOutput: SchemaValidator | undefined;
}

export interface Scoped<T> {
  readonly owner: Context;
  readonly value: T;
}

/** Shared by every context's view of the service. */
export class ToolStore {
  readonly tools = new Map<string, Entry>();
  readonly layers: Scoped<ToolFilter>[] = [];
  readonly guards: Scoped<ToolGuard>[] = [];
  readonly presentations: Scoped<PresentationMode>[] = [];
  transport: Entry | undefined;
  private nextCallNumber = 1;

  readonly defaultMode: PresentationMode;

  constructor(defaultMode: PresentationMode) {
    this.defaultMode = defaultMode;
  }

  newCallId(): string {
    return `call_${this.nextCallNumber++}`;
  }
}

/** Adds `value` to a scoped list as an effect of `ctx`: it applies to `ctx` and below until the effect ends. */
export function addScoped<T>(ctx: Context, list: Scoped<T>[], value: T): Disposer {
  const item: Scoped<T> = { owner: ctx, value };
  return ctx.effect(() => {
    list.push(item);
    return () => {
      const at = list.indexOf(item);
      if (at >= 0) list.splice(at, 1);
    };
  });
}

/** The values of a scoped list that apply in `scope` (declared by it or a context above it). */
export function scopedFor<T>(list: readonly Scoped<T>[], scope: Context): T[] {
  return list.filter((item) => isScopeWithin(scope, item.owner)).map((item) => item.value);
}

/**
 * Compiles a definition's schemas once and checks its examples against them; a schema ajv rejects,
 * a parsing schema without `~standard`, or an example that does not fit is a CONFIG error naming the tool.
 * A vetted definition (vetted-schemas.ts) has its schemas compiled on first use and its examples
 * left to the test that vetted them.
 */
export function compileEntry(def: AnyToolDefinition): Entry {
  if (def.inputSchema === undefined) {
    throw new ConfigError(
      `Tool "${def.name}" has no inputSchema; a tool described by zod schemas (input/output) must be made with defineTool(...) before it is registered.`,
    );
  }
  const vetted = schemasVetted(def);
  const compile = vetted ? deferSchema : compileSchema;
  const validateArgs = compile(def.inputSchema, `input schema of tool "${def.name}"`);
  const validateOutput =
    def.outputSchema === undefined ? undefined : compile(def.outputSchema, `output schema of tool "${def.name}"`);
  for (const key of ['input', 'output'] as const) {
    if (def[key] !== undefined && !isParsingSchema(def[key])) {
      throw new ConfigError(`Tool "${def.name}": ${key} must be a zod schema (or another schema with the Standard Schema "~standard" interface); define the tool with defineTool.`);
    }
  }
  if (def.examples !== undefined && !vetted) {
    if (!Array.isArray(def.examples)) throw new ConfigError(`Tool "${def.name}": examples must be an array of argument objects.`);
    def.examples.forEach((example: unknown, index) => {
      const problems = exampleProblems(def, validateArgs, example);
      if (problems.length > 0) {
        throw new ConfigError(
          `Tool "${def.name}": examples[${index}] does not match the tool's input schema:\n${problems.map((p) => `  ${p}`).join('\n')}\n` +
            'Fix the example or remove it.',
        );
      }
    });
  }
  return { def, validateArgs, validateOutput };
}

/** Why an example is not a valid call: not JSON, rejected by ajv, or (when it parses synchronously) by the parsing schema. */
function exampleProblems(def: AnyToolDefinition, validateArgs: SchemaValidator, example: unknown): string[] {
  const json = checkJson(example);
  if (!json.ok) return [`${json.path || '(root)'}: ${json.reason}`];
  const problems = validateArgs(example);
  if (problems.length > 0 || !def.input) return problems;
  const parsed = parseNow(def.input, example);
  return parsed && !parsed.ok ? parsed.problems : [];
}

function isScopeWithin(scope: Context, owner: Context): boolean {
  for (let at: Context | undefined = scope; at; at = at.parent) if (at === owner) return true;
  return false;
}

export function toSchema(def: AnyToolDefinition): ToolSchema {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.inputSchema,
    ...(def.outputSchema !== undefined ? { outputSchema: def.outputSchema } : {}),
  };
}

/** Code-unit order: deterministic across locales. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
