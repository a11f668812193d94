// JSON Schema (2020-12 subset) → TypeScript type text: the entry points and their options. Whatever
// the input, the result is valid TypeScript: anything not understood, too deep or too large degrades
// to `unknown`. The walk is schema-renderer.ts, its type algebra type-text.ts, the circular-alias
// guard ref-graph.ts.

import { MAX_DIRECT_REF_CHAIN, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../../../limits.js';
import { ConfigError } from '../../../errors.js';
import type { JsonSchema } from '../../../json.js';
import { getOwn } from '../../../codegen/schema-access.js';
import { allocateName, identifierFrom, indentContinuation, isDeclarableTypeName, jsDoc, quoteString } from '../../../codegen/ts-syntax.js';
import { DocumentRenderer } from './schema-renderer.js';

export { MAX_DIRECT_REF_CHAIN, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES };

/** How the caller names and spells the types a document needs besides its root. */
export interface SchemaTypeOptions {
  /** The type expression `$ref: "#"` renders to: whatever the caller declares for the root. */
  readonly rootRef: string;
  /**
   * Chooses the identifier of the helper type for one definition (`$defs` or `definitions` key).
   * Called once per definition actually referenced, in a deterministic order; it must return a
   * declarable identifier that nothing else in the caller's output uses.
   */
  readonly nameHelper: (definitionKey: string) => string;
  /** How a reference to a helper is spelled, e.g. `Root.${name}` inside a namespace. Default: the name. */
  readonly helperRef?: (name: string) => string;
}

/** One named helper type: `text` is its `type Name = ...;` declaration with JSDoc, at column 0. */
export interface HelperDeclaration {
  readonly name: string;
  readonly text: string;
}

export interface RenderedSchemaType {
  /** The type expression of the root schema; continuation lines are indented from column 0. */
  readonly type: string;
  /** The root schema's `description`, for the caller's JSDoc. */
  readonly description?: string;
  /** Helper declarations for the definitions the root reaches, sorted by name. */
  readonly helpers: readonly HelperDeclaration[];
  /**
   * True when `rootRef` appears in the output. The caller must then declare it as a type alias:
   * only aliases may refer to themselves through an array (an interface member may not).
   */
  readonly rootReferenced: boolean;
}

/**
 * Renders `schema` to a type expression plus the helper declarations it refers to. This is the
 * piece both `jsonSchemaToTs` and the SDK renderer build on; it never throws for any schema.
 */
export function renderSchemaType(schema: unknown, options: SchemaTypeOptions): RenderedSchemaType {
  const description = getOwn(schema, 'description');
  const docs = typeof description === 'string' ? { description } : {};
  try {
    return { ...new DocumentRenderer(schema, options).renderDocument(), ...docs };
  } catch {
    // Defence in depth: the renderer reads defensively and caps depth and size, so this is not
    // expected to run; if it does, the promise "never a crash" still holds.
    return { type: 'unknown', helpers: [], rootReferenced: false, ...docs };
  }
}

/**
 * TypeScript source declaring `type <name>` (default `Root`) for `schema`. Helper types for
 * `$defs`/`definitions` live in `declare namespace <name>`, so outputs of calls with different
 * names never collide. Throws a ConfigError (code CONFIG) only when `name` cannot name a type.
 */
export function jsonSchemaToTs(schema: JsonSchema, options?: { name?: string }): string {
  const name = options?.name ?? 'Root';
  if (!isDeclarableTypeName(name)) {
    throw new ConfigError(
      `jsonSchemaToTs: name ${quoteString(String(name))} cannot name a type; ` +
        'use an ASCII identifier that is not a reserved word, e.g. "ReadArgs".',
    );
  }
  const used = new Set<string>([name]);
  const rendered = renderSchemaType(schema, {
    rootRef: name,
    nameHelper: (key) => allocateName(identifierFrom(key, 'Def'), used),
    helperRef: (helper) => `${name}.${helper}`,
  });
  let out = `${jsDoc(rendered.description, '')}type ${name} = ${rendered.type};\n`;
  if (rendered.helpers.length > 0) {
    const members = rendered.helpers.map((h) => `  ${indentContinuation(h.text, '  ')}\n`);
    out += `\ndeclare namespace ${name} {\n${members.join('\n')}}\n`;
  }
  return out;
}
