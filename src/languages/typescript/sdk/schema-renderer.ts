// The walk of one schema document into TypeScript type text (json-schema-to-ts.ts is its entry):
// keywords to types, local `$ref`s to named helper types rendered from a work queue, and the caps
// (MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES) past which anything degrades to `unknown`.

import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../../../limits.js';
import { arrayOf, getOwn, hasOwn, isRecord, ownKeys } from '../../../codegen/schema-access.js';
import { compareCodeUnits, indentContinuation, jsDoc, propertyKey, quoteString } from '../../../codegen/ts-syntax.js';
import type { RenderedSchemaType, SchemaTypeOptions } from './json-schema-to-ts.js';
import { DirectRefGraph } from './ref-graph.js';
import { intersection, NEVER, NULL, parenthesize, PRIMITIVES, union, UNKNOWN, type TypeText } from './type-text.js';

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

export class DocumentRenderer {
  private readonly helpers = new Map<string, HelperState>();
  private readonly pending: string[] = [];
  /** Direct references between named types (root `#` included): no circular alias (ref-graph.ts). */
  private readonly graph = new DirectRefGraph();
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
    if (owner !== undefined && !this.graph.add(owner, node)) return UNKNOWN;
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


}
