// JSON Schema (the defineTool subset) → Python type expressions for the Python SDK: objects with
// properties become named TypedDicts (declared by the caller), the rest typing expressions. Whatever
// the input the result compiles: anything not understood, too deep or too large becomes JsonValue.

import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../../../limits.js';
import { arrayOf, getOwn, hasOwn, isRecord, ownKeys } from '../../../codegen/schema-access.js';
import { isPythonIdentifier, pyComment, pyDocstring, pyString } from './python-syntax.js';
import { allocateName } from '../../../codegen/ts-syntax.js';

/** One named declaration the type refers to (a TypedDict or an alias), at column 0. */
export interface PythonDeclaration {
  readonly name: string;
  readonly text: string;
}

export interface PythonTypeNames {
  /** Names already taken in the SDK; new declarations get fresh ones and are added here. */
  readonly used: Set<string>;
  /** Collects the declarations, in the order they are first needed. */
  readonly declarations: PythonDeclaration[];
}

const JSON_VALUE = 'JsonValue';

/**
 * The type expression of `schema`; an object with properties is declared as TypedDict `name` (or a
 * free variant of it) and referred to by name. `$defs` / `definitions` entries are declared as
 * `<name>_<key>` when reached.
 */
export function renderPythonType(schema: unknown, name: string, names: PythonTypeNames): string {
  try {
    return new PythonRenderer(schema, name, names).root();
  } catch {
    return JSON_VALUE;
  }
}

class PythonRenderer {
  readonly #root: unknown;
  readonly #rootName: string;
  readonly #names: PythonTypeNames;
  readonly #defs = new Map<string, string>();
  #rootDeclared: string | undefined;
  #nodes = 0;

  constructor(root: unknown, rootName: string, names: PythonTypeNames) {
    this.#root = root;
    this.#rootName = rootName;
    this.#names = names;
  }

  root(): string {
    return this.#type(this.#root, this.#rootName, 0, true);
  }

  #type(schema: unknown, hint: string, depth: number, isRoot = false): string {
    if (++this.#nodes > MAX_SCHEMA_NODES || depth > MAX_SCHEMA_DEPTH) return JSON_VALUE;
    if (!isRecord(schema)) return JSON_VALUE;
    const ref = getOwn(schema, '$ref');
    if (typeof ref === 'string') return this.#ref(ref, depth);
    if (hasOwn(schema, 'const')) return literal([getOwn(schema, 'const')]) ?? JSON_VALUE;
    const enumValues = arrayOf(getOwn(schema, 'enum'));
    if (enumValues !== undefined) return literal(enumValues) ?? JSON_VALUE;
    for (const keyword of ['anyOf', 'oneOf']) {
      const options = arrayOf(getOwn(schema, keyword));
      if (options !== undefined && options.length > 0) {
        return union(options.map((option, i) => this.#type(option, `${hint}${i + 1}`, depth + 1)));
      }
    }
    const allOf = arrayOf(getOwn(schema, 'allOf'));
    if (allOf !== undefined && allOf.length === 1) return this.#type(allOf[0], hint, depth + 1);
    const type = getOwn(schema, 'type');
    const types = typeof type === 'string' ? [type] : (arrayOf(type)?.filter((t): t is string => typeof t === 'string') ?? []);
    if (types.length === 0) return hasOwn(schema, 'properties') ? this.#object(schema, hint, depth, isRoot) : JSON_VALUE;
    return union(types.map((t) => this.#single(t, schema, hint, depth, isRoot)));
  }

  #single(type: string, schema: { readonly [key: string]: unknown }, hint: string, depth: number, isRoot: boolean): string {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array': {
        const items = getOwn(schema, 'items');
        return `List[${isRecord(items) ? this.#type(items, `${hint}Item`, depth + 1) : JSON_VALUE}]`;
      }
      case 'object':
        return this.#object(schema, hint, depth, isRoot);
      default:
        return JSON_VALUE;
    }
  }

  #object(schema: { readonly [key: string]: unknown }, hint: string, depth: number, isRoot: boolean): string {
    const properties = getOwn(schema, 'properties');
    const keys = ownKeys(properties);
    if (keys.length === 0) {
      const additional = getOwn(schema, 'additionalProperties');
      return `Dict[str, ${isRecord(additional) ? this.#type(additional, `${hint}Value`, depth + 1) : JSON_VALUE}]`;
    }
    const name = allocateName(hint, this.#names.used);
    if (isRoot) this.#rootDeclared = name;
    const required = new Set((arrayOf(getOwn(schema, 'required')) ?? []).filter((k): k is string => typeof k === 'string'));
    const fields = keys.map((key) => {
      const property = getOwn(properties, key);
      const type = this.#type(property, `${name}_${fieldHint(key)}`, depth + 1);
      return { key, type: required.has(key) ? type : `NotRequired[${type}]`, description: getOwn(property, 'description') };
    });
    // Declared after its fields' own TypedDicts, so every name is defined before it is used.
    this.#names.declarations.push({ name, text: typedDict(name, getOwn(schema, 'description'), fields) });
    return name;
  }

  #ref(ref: string, depth: number): string {
    if (ref === '#') return this.#rootDeclared === undefined ? JSON_VALUE : pyString(this.#rootDeclared);
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (match === null) return JSON_VALUE;
    const key = decodePointer(match[2] as string);
    const known = this.#defs.get(key);
    if (known !== undefined) return pyString(known);
    const target = getOwn(getOwn(this.#root, match[1] as string), key);
    if (!isRecord(target)) return JSON_VALUE;
    const name = allocateName(`${this.#rootName}_${fieldHint(key)}`, this.#names.used);
    // Taken before rendering: a definition that refers to itself reaches the quoted (forward) name.
    this.#defs.set(key, name);
    this.#names.used.delete(name);
    const type = this.#type(target, name, depth + 1);
    if (type !== name) {
      this.#names.used.add(name);
      this.#names.declarations.push({ name, text: `${pyComment(getOwn(target, 'description'), '')}${name} = ${type}` });
    }
    return name;
  }
}

function typedDict(name: string, description: unknown, fields: readonly { key: string; type: string; description: unknown }[]): string {
  if (fields.every((f) => isPythonIdentifier(f.key))) {
    const doc = pyDocstring(description, '    ');
    const body = fields.map((f) => `${pyComment(f.description, '    ')}    ${f.key}: ${f.type}\n`).join('');
    return `class ${name}(TypedDict):\n${doc}${body === '' && doc === '' ? '    pass\n' : body}`.trimEnd();
  }
  // Keys that are not identifiers (or are keywords, like "from") need the functional form.
  const body = fields.map((f) => `${pyComment(f.description, '    ')}    ${pyString(f.key)}: ${f.type},\n`).join('');
  return `${pyComment(description, '')}${name} = TypedDict(${pyString(name)}, {\n${body}})`;
}

/** `Literal[...]` of scalar JSON values, or undefined when a value has no Python literal type. */
function literal(values: readonly unknown[]): string | undefined {
  const parts: string[] = [];
  for (const value of values) {
    if (typeof value === 'string') parts.push(pyString(value));
    else if (typeof value === 'boolean') parts.push(value ? 'True' : 'False');
    else if (typeof value === 'number' && Number.isSafeInteger(value)) parts.push(String(value));
    else if (value === null) parts.push('None');
    else return undefined;
  }
  return parts.length === 0 ? undefined : `Literal[${[...new Set(parts)].join(', ')}]`;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes(JSON_VALUE)) return JSON_VALUE;
  return unique.length === 1 ? (unique[0] as string) : `Union[${unique.join(', ')}]`;
}

/** `read_file` → `ReadFile`: a readable fragment of a declared name. */
export function pascalCase(text: string, fallback: string): string {
  const pascal = text
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return pascal === '' ? fallback : /^[0-9]/.test(pascal) ? `${fallback}${pascal}` : pascal;
}

function fieldHint(key: string): string {
  return pascalCase(key, 'Field');
}

function decodePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
