// Schemas that parse as well as validate (zod's, through the Standard Schema interface every zod 4
// schema carries): the registry runs them after ajv so defaults and transforms reach the tool body.

/** One problem a parsing schema reports. */
export interface ParseIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** What a parsing schema's `validate` returns: the parsed value, or issues. */
export type ParseResult = { readonly value: unknown; readonly issues?: undefined } | { readonly issues: readonly ParseIssue[] };

/**
 * A schema that turns a valid input into the value a tool works with. Every zod 4 schema is one
 * (the Standard Schema interface, `~standard`); so are schemas of other libraries that implement it.
 */
export interface ParsingSchema {
  readonly '~standard': {
    readonly validate: (value: unknown) => ParseResult | Promise<ParseResult>;
  };
}

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problems: string[] };

export function isParsingSchema(value: unknown): value is ParsingSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as { '~standard'?: unknown })['~standard'];
  return typeof standard === 'object' && standard !== null && typeof (standard as { validate?: unknown }).validate === 'function';
}

/** Parses `value`; issues come back as `path: message` lines, the same shape ajv's errors take. */
export async function parseWith(schema: ParsingSchema, value: unknown): Promise<Parsed> {
  const own = ownedCopy(value);
  return restored(settle(await schema['~standard'].validate(own.value)), own.made);
}

/**
 * Parses synchronously when the schema can (no async refinements); `undefined` when it returned a
 * promise, which is then left to settle on its own without an unhandled rejection.
 */
export function parseNow(schema: ParsingSchema, value: unknown): Parsed | undefined {
  const own = ownedCopy(value);
  const result = schema['~standard'].validate(own.value);
  if (result instanceof Promise) {
    result.catch(() => {});
    return undefined;
  }
  return restored(settle(result), own.made);
}

/**
 * A copy of a JSON value whose objects have no prototype while the schema reads them. zod looks a
 * property up with `key in input` and `input[key]`, so on a plain object an absent optional argument
 * named `constructor` or `toString` would be found on Object.prototype (a function) and fail the
 * call; on a null-prototype object only own properties exist (docs/security.md, "Limits that hold").
 */
function ownedCopy(value: unknown): { value: unknown; made: WeakSet<object> } {
  const made = new WeakSet<object>();
  // A tool's raw value may hold class instances (a Date for a transform) and cycles: only plain
  // objects and arrays are copied, each once.
  const copies = new Map<object, unknown>();
  const copy = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const done = copies.get(v);
    if (done !== undefined) return done;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      copies.set(v, out);
      for (const item of v) out.push(copy(item));
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return v;
    const out = Object.create(null) as Record<string, unknown>;
    copies.set(v, out);
    made.add(out);
    for (const key of Object.keys(v)) out[key] = copy((v as Record<string, unknown>)[key]);
    return out;
  };
  return { value: copy(value), made };
}

/**
 * The parsed value with Object.prototype given back to the copies the schema passed through
 * unchanged (`z.unknown()`, records, loose objects), so a tool body gets ordinary objects.
 */
function restored(parsed: Parsed, made: WeakSet<object>): Parsed {
  if (!parsed.ok) return parsed;
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    const proto: unknown = Object.getPrototypeOf(v);
    if (made.has(v)) Object.setPrototypeOf(v, Object.prototype);
    else if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return;
    for (const key of Object.keys(v)) visit((v as Record<string, unknown>)[key]);
  };
  visit(parsed.value);
  return parsed;
}

function settle(result: ParseResult): Parsed {
  if (result.issues === undefined) return { ok: true, value: result.value };
  const problems = result.issues.map((issue) => `${pointer(issue.path)}: ${issue.message}`);
  return { ok: false, problems: problems.length > 0 ? problems : ['(root): is invalid'] };
}

/** A JSON Pointer like ajv's instancePath, `(root)` for the value itself. */
function pointer(path: ParseIssue['path']): string {
  if (!path || path.length === 0) return '(root)';
  return path
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
      return `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
    })
    .join('');
}
