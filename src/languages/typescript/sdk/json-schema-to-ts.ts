// JSON Schema (2020-12 subset) → TypeScript type text. Whatever the input, the result is valid
// TypeScript: anything not understood, too deep or too large degrades to `unknown`.

import { MAX_DIRECT_REF_CHAIN, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../../../limits.js';
import { ConfigError } from '../../../errors.js';
import type { JsonSchema } from '../../../json.js';
import { arrayOf, getOwn, hasOwn, isRecord, ownKeys } from '../../../codegen/schema-access.js';
import {
  allocateName,
  compareCodeUnits,
  identifierFrom,
  indentContinuation,
  isDeclarableTypeName,
  jsDoc,
  propertyKey,
  quoteString,
} from '../../../codegen/ts-syntax.js';

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

/** A rendered type and how tightly it binds, to know where parentheses are needed. */
interface TypeText {
  readonly text: string;
  /** 0: union, 1: intersection or prefixed (`-1`), 2: primary. */
  readonly prec: 0 | 1 | 2;
  /** Flattened members when this is a union or an intersection. */
  readonly members?: readonly string[];
}

const UNKNOWN: TypeText = { text: 'unknown', prec: 2 };
const NEVER: TypeText = { text: 'never', prec: 2 };
const NULL: TypeText = { text: 'null', prec: 2 };
const PRIMITIVES: Readonly<Record<string, TypeText>> = {
  string: { text: 'string', prec: 2 },
  number: { text: 'number', prec: 2 },
  integer: { text: 'number', prec: 2 },
  boolean: { text: 'boolean', prec: 2 },
  null: NULL,
};

const ROOT_NODE = '#';
const LOCAL_DEF_REF = /^#\/(\$defs|definitions)\/([^/]*)$/;

type SchemaObject = { readonly [key: string]: unknown };

/** What `type` says; `generic` marks a bare open object, which adds nothing beside a `$ref`. */
interface KeywordType {
  readonly type: TypeText;
  readonly generic: boolean;
}

interface HelperState {
  readonly name: string;
  readonly ref: string;
  readonly schema: unknown;
  body?: TypeText;
}

class DocumentRenderer {
  private readonly helpers = new Map<string, HelperState>();
  private readonly pending: string[] = [];
  /**
   * Direct references between named types (root `#` included). A type alias may refer to itself
   * only through an object member, array or tuple element; a chain of direct references back to
   * itself is a circular alias. Every edge is checked before it is added, so this stays acyclic.
   */
  private readonly directEdges = new Map<string, Set<string>>();
  private readonly reverseEdges = new Map<string, Set<string>>();
  private nodeBudget = MAX_SCHEMA_NODES;
  /** Counts emitted named references, to know whether a subtree mentions any. */
  private refCount = 0;
  private rootReferenced = false;

  private readonly root: unknown;
  private readonly options: SchemaTypeOptions;

  constructor(root: unknown, options: SchemaTypeOptions) {
    this.root = root;
    this.options = options;
  }

  renderDocument(): Omit<RenderedSchemaType, 'description'> {
    const type = this.render(this.root, ROOT_NODE, 0).text;
    // Helpers are rendered from a work queue rather than recursively, so a long chain of
    // definitions cannot deepen the stack and every helper body starts at depth 0.
    for (let key = this.pending.shift(); key !== undefined; key = this.pending.shift()) {
      const helper = this.helpers.get(key);
      if (helper) helper.body = this.render(helper.schema, key, 0);
    }
    const helpers = [...this.helpers.values()]
      .map((h) => ({
        name: h.name,
        text: `${jsDoc(getOwn(h.schema, 'description'), '')}type ${h.name} = ${(h.body ?? UNKNOWN).text};`,
      }))
      .sort((a, b) => compareCodeUnits(a.name, b.name));
    return { type, helpers, rootReferenced: this.rootReferenced };
  }

  /**
   * `owner` is the named type whose body we are directly in (not inside an object member, array
   * or tuple element), or undefined when a reference here cannot form a circular alias.
   */
  private render(schema: unknown, owner: string | undefined, depth: number): TypeText {
    if (depth > MAX_SCHEMA_DEPTH || this.nodeBudget-- <= 0) return UNKNOWN;
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isRecord(schema)) return UNKNOWN;

    let base: TypeText;
    let generic = false;
    if (hasOwn(schema, 'const')) {
      base = this.literal(getOwn(schema, 'const'), depth);
    } else if (hasOwn(schema, 'enum')) {
      const values = arrayOf(getOwn(schema, 'enum'));
      base = values ? union(values.map((v) => this.literal(v, depth))) : UNKNOWN;
    } else {
      ({ type: base, generic } = this.typeKeyword(schema, depth));
      // OpenAPI 3.0 spelling of `type: [..., "null"]`.
      if (getOwn(schema, 'nullable') === true) {
        base = union([base, NULL]);
        generic = false;
      }
    }

    const parts: TypeText[] = [];
    if (hasOwn(schema, '$ref')) parts.push(this.reference(getOwn(schema, '$ref'), owner));
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = arrayOf(getOwn(schema, keyword));
      if (branches) parts.push(union(branches.map((b) => this.render(b, owner, depth + 1))));
    }
    const all = arrayOf(getOwn(schema, 'allOf'));
    if (all) parts.push(...all.map((s) => this.render(s, owner, depth + 1)));
    // A bare `type: "object"` next to a $ref or combinator adds nothing but noise.
    const informative = parts.filter((p) => p !== UNKNOWN);
    if (generic && informative.length > 0) return intersection(informative);
    return intersection([base, ...parts]);
  }

  /** The type from `type`, or implied by object/array keywords when `type` is missing. */
  private typeKeyword(schema: SchemaObject, depth: number): KeywordType {
    const type = getOwn(schema, 'type');
    if (typeof type === 'string') return this.ofType(type, schema, depth);
    if (type !== undefined) {
      const types = arrayOf(type);
      if (!types || types.length === 0) return { type: UNKNOWN, generic: false };
      const members = types.map((t) => (typeof t === 'string' ? this.ofType(t, schema, depth).type : UNKNOWN));
      return { type: union(members), generic: false };
    }
    if (hasOwn(schema, 'properties') || hasOwn(schema, 'additionalProperties')) {
      return this.ofType('object', schema, depth);
    }
    if (hasOwn(schema, 'items') || hasOwn(schema, 'prefixItems')) return this.ofType('array', schema, depth);
    return { type: UNKNOWN, generic: false };
  }

  private ofType(type: string, schema: SchemaObject, depth: number): KeywordType {
    if (type === 'object') return this.objectType(schema, depth);
    if (type === 'array') return { type: this.arrayType(schema, depth), generic: false };
    const primitive = Object.prototype.hasOwnProperty.call(PRIMITIVES, type) ? PRIMITIVES[type] : undefined;
    return { type: primitive ?? UNKNOWN, generic: false };
  }

  private objectType(schema: SchemaObject, depth: number): KeywordType {
    const properties = getOwn(schema, 'properties');
    const keys = isRecord(properties) ? ownKeys(properties) : [];
    const required = new Set((arrayOf(getOwn(schema, 'required')) ?? []).filter((k) => typeof k === 'string'));
    const additional = getOwn(schema, 'additionalProperties');
    const patterned = ownKeys(getOwn(schema, 'patternProperties')).length > 0;

    const refsBefore = this.refCount;
    let extra: TypeText | undefined;
    if (patterned || additional === true) extra = UNKNOWN;
    else if (isRecord(additional)) extra = this.render(additional, undefined, depth + 1);
    else if (additional !== false && keys.length === 0) extra = UNKNOWN;
    // Properties listed without `additionalProperties` leave extra keys implicit: TypeScript's
    // object types are open anyway, and an `[key: string]: unknown` line on every tool is noise.
    if (extra === NEVER) extra = undefined;

    if (keys.length === 0) {
      if (!extra) return { type: { text: '{}', prec: 2 }, generic: false };
      // `Record<...>` is a generic alias: a type alias reaching itself through it is circular, so
      // an index signature is used whenever the value type names another type.
      const text =
        this.refCount === refsBefore
          ? `Record<string, ${extra.text}>`
          : `{\n  [key: string]: ${indentContinuation(extra.text, '  ')};\n}`;
      return { type: { text, prec: 2 }, generic: extra === UNKNOWN };
    }

    const lines: string[] = [];
    const memberTypes: TypeText[] = [];
    let anyOptional = false;
    for (const key of keys) {
      const propSchema = getOwn(properties, key);
      const type = this.render(propSchema, undefined, depth + 1);
      const optional = !required.has(key);
      anyOptional ||= optional;
      memberTypes.push(type);
      const doc = jsDoc(getOwn(propSchema, 'description'), '  ');
      lines.push(`${doc}  ${propertyKey(key)}${optional ? '?' : ''}: ${indentContinuation(type.text, '  ')};`);
    }
    if (extra) {
      // Every declared property must fit the index signature, so it widens to include them.
      let index = union([extra, ...memberTypes, ...(anyOptional ? [{ text: 'undefined', prec: 2 } as const] : [])]);
      if (index.text.includes('\n')) index = UNKNOWN;
      lines.push(`  [key: string]: ${index.text};`);
    }
    return { type: { text: `{\n${lines.join('\n')}\n}`, prec: 2 }, generic: false };
  }

  private arrayType(schema: SchemaObject, depth: number): TypeText {
    let prefix = arrayOf(getOwn(schema, 'prefixItems'));
    let items = getOwn(schema, 'items');
    // The draft-04..07 spelling of a tuple: `items: [...]` with `additionalItems` for the rest.
    const legacyTuple = prefix ? undefined : arrayOf(items);
    if (legacyTuple) {
      prefix = legacyTuple;
      items = getOwn(schema, 'additionalItems');
    }
    if (prefix) {
      const minItems = getOwn(schema, 'minItems');
      const min = typeof minItems === 'number' && Number.isFinite(minItems) ? Math.max(0, Math.ceil(minItems)) : 0;
      const elements = prefix.map((s, i) => {
        const t = this.render(s, undefined, depth + 1);
        return i < min ? t.text : `${parenthesize(t, 2)}?`;
      });
      const rest = items === false ? undefined : isRecord(items) ? this.render(items, undefined, depth + 1) : UNKNOWN;
      if (rest && rest !== NEVER) elements.push(`...${parenthesize(rest, 2)}[]`);
      return { text: `[${elements.join(', ')}]`, prec: 2 };
    }
    if (items === false) return { text: '[]', prec: 2 };
    const element = isRecord(items) ? this.render(items, undefined, depth + 1) : UNKNOWN;
    return { text: `${parenthesize(element, 2)}[]`, prec: 2 };
  }

  /** A literal type for a `const`/`enum` value; objects and arrays become structural literals. */
  private literal(value: unknown, depth: number): TypeText {
    if (depth > MAX_SCHEMA_DEPTH || this.nodeBudget-- <= 0) return UNKNOWN;
    if (value === null) return NULL;
    if (typeof value === 'string') return { text: quoteString(value), prec: 2 };
    if (typeof value === 'boolean') return { text: String(value), prec: 2 };
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return PRIMITIVES.number!;
      if (Object.is(value, -0) || value === 0) return { text: '0', prec: 2 };
      return { text: String(value), prec: value < 0 ? 1 : 2 };
    }
    const items = arrayOf(value);
    if (items) return { text: `[${items.map((v) => this.literal(v, depth + 1).text).join(', ')}]`, prec: 2 };
    if (isRecord(value)) {
      const keys = ownKeys(value);
      if (keys.length === 0) return { text: '{}', prec: 2 };
      const members = keys.map((k) => `${propertyKey(k)}: ${this.literal(getOwn(value, k), depth + 1).text}`);
      return { text: `{ ${members.join('; ')} }`, prec: 2 };
    }
    return UNKNOWN;
  }

  /** A local `$ref` to the root or to a `$defs`/`definitions` entry; anything else is unknown. */
  private reference(ref: unknown, owner: string | undefined): TypeText {
    if (typeof ref !== 'string') return UNKNOWN;
    let node = ROOT_NODE;
    let key = '';
    let section = '';
    if (ref !== '#') {
      const match = LOCAL_DEF_REF.exec(ref);
      if (!match) return UNKNOWN;
      section = match[1]!;
      try {
        key = decodeURIComponent(match[2]!).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return UNKNOWN;
      }
      if (!hasOwn(getOwn(this.root, section), key)) return UNKNOWN;
      node = `${section}/${key}`;
    }
    if (owner !== undefined) {
      if (owner === node || this.reaches(node, owner)) return UNKNOWN;
      const chain = longestPath(this.reverseEdges, owner) + 1 + longestPath(this.directEdges, node);
      if (chain > MAX_DIRECT_REF_CHAIN) return UNKNOWN;
      addEdge(this.directEdges, owner, node);
      addEdge(this.reverseEdges, node, owner);
    }
    this.refCount++;
    if (node === ROOT_NODE) {
      this.rootReferenced = true;
      return { text: this.options.rootRef, prec: 2 };
    }
    let helper = this.helpers.get(node);
    if (!helper) {
      const name = this.options.nameHelper(key);
      const spelled = this.options.helperRef ? this.options.helperRef(name) : name;
      helper = { name, ref: spelled, schema: getOwn(getOwn(this.root, section), key) };
      this.helpers.set(node, helper);
      this.pending.push(node);
    }
    return { text: helper.ref, prec: 2 };
  }

  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const next of this.directEdges.get(node) ?? []) stack.push(next);
    }
    return false;
  }
}

function addEdge(graph: Map<string, Set<string>>, from: string, to: string): void {
  let edges = graph.get(from);
  if (!edges) graph.set(from, (edges = new Set()));
  edges.add(to);
}

/** Edges on the longest path from `start` in an acyclic graph whose paths are at most MAX_DIRECT_REF_CHAIN long. */
function longestPath(graph: ReadonlyMap<string, ReadonlySet<string>>, start: string): number {
  const memo = new Map<string, number>();
  const visit = (node: string): number => {
    let best = memo.get(node);
    if (best !== undefined) return best;
    best = 0;
    for (const next of graph.get(node) ?? []) best = Math.max(best, 1 + visit(next));
    memo.set(node, best);
    return best;
  };
  return visit(start);
}

function parenthesize(t: TypeText, minPrec: 0 | 1 | 2): string {
  return t.prec < minPrec ? `(${t.text})` : t.text;
}

/** A union: `unknown` absorbs everything, `never` members vanish, duplicates are dropped. */
function union(types: readonly TypeText[]): TypeText {
  const members = new Set<string>();
  for (const t of types) {
    if (t.text === 'unknown') return UNKNOWN;
    if (t.text === 'never') continue;
    for (const m of t.prec === 0 && t.members ? t.members : [t.text]) members.add(m);
  }
  if (members.size === 0) return NEVER;
  const list = [...members];
  if (list.length === 1) return types.find((t) => t.text === list[0]) ?? { text: list[0]!, prec: 2 };
  return { text: list.join(' | '), prec: 0, members: list };
}

/** An intersection: `unknown` members vanish, `never` absorbs everything, duplicates are dropped. */
function intersection(types: readonly TypeText[]): TypeText {
  const members = new Set<string>();
  let first: TypeText | undefined;
  for (const t of types) {
    if (t.text === 'never') return NEVER;
    if (t.text === 'unknown') continue;
    for (const m of t.prec === 1 && t.members ? t.members : [parenthesize(t, 1)]) members.add(m);
    first ??= t;
  }
  if (members.size === 0 || !first) return UNKNOWN;
  if (members.size === 1) return first;
  const list = [...members];
  return { text: list.join(' & '), prec: 1, members: list };
}
