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
  return settle(await schema['~standard'].validate(value));
}

/**
 * Parses synchronously when the schema can (no async refinements); `undefined` when it returned a
 * promise, which is then left to settle on its own without an unhandled rejection.
 */
export function parseNow(schema: ParsingSchema, value: unknown): Parsed | undefined {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => {});
    return undefined;
  }
  return settle(result);
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
