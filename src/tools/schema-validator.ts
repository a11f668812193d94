// JSON Schema validation with ajv, compiled once per schema at registration. A schema is read in the
// dialect its `$schema` declares (2020-12 when it declares none); docs/defining-tools.md lists them.
//
// ajv is required on the first compile, not imported with this module: loading it and compiling
// costs more than the whole start-up of a command that only lists tools (bench/cli-start.ts), and a
// built-in tool's schemas are compiled only when it is first called (deferSchema below).

import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options } from 'ajv';
import { quickAcceptOf } from './schema-quick-accept.js';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../json.js';

const requireHere = createRequire(import.meta.url);

/** The ajv classes, loaded (synchronously, as compileSchema is) on first use. */
const ajvModule = {
  draft07: () => (requireHere('ajv') as { Ajv: new (options: Options) => Ajv }).Ajv,
  draft2019: () => (requireHere('ajv/dist/2019.js') as { Ajv2019: new (options: Options) => Ajv2019 }).Ajv2019,
  draft2020: () => (requireHere('ajv/dist/2020.js') as { Ajv2020: new (options: Options) => Ajv2020 }).Ajv2020,
  draft06MetaSchema: () => requireHere('ajv/dist/refs/json-schema-draft-06.json') as object,
};

/** Returns `path: message` lines; empty when the value is valid. */
export type SchemaValidator = (value: unknown) => string[];

/** The dialects a tool schema may declare in `$schema`. */
export type SchemaDialect = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

// Tool schemas come from many authors (MCP servers among them): unknown keywords and formats must
// not stop registration; they simply do not constrain.
const OPTIONS = { allErrors: true, strict: false, validateFormats: false, ownProperties: true } as const;
// A vetted schema (deferSchema) was checked against its meta-schema by the test that vetted it;
// checking it again would compile the meta-schema itself, most of the cost of a first compile.
const VETTED_OPTIONS = { ...OPTIONS, validateSchema: false } as const;

/** One ajv instance per dialect family (and per vetted or not), made on first use. */
type Compiler = Pick<Ajv2020, 'compile'>;
const compilers = new Map<string, Compiler>();

/** The meta-schema URI each dialect's ajv knows, and how to make that ajv. */
const DIALECTS: Readonly<Record<SchemaDialect, { readonly uri: string; readonly family: string; create(options: Options): Compiler }>> = {
  'draft-06': { uri: 'http://json-schema.org/draft-06/schema#', family: 'draft-07', create: createDraft07 },
  'draft-07': { uri: 'http://json-schema.org/draft-07/schema#', family: 'draft-07', create: createDraft07 },
  '2019-09': { uri: 'https://json-schema.org/draft/2019-09/schema', family: '2019-09', create: (options) => new (ajvModule.draft2019())(options) },
  '2020-12': { uri: 'https://json-schema.org/draft/2020-12/schema', family: '2020-12', create: (options) => new (ajvModule.draft2020())(options) },
};

function createDraft07(options: Options): Compiler {
  const ajv = new (ajvModule.draft07())(options);
  ajv.addMetaSchema(ajvModule.draft06MetaSchema());
  return ajv;
}

/**
 * The dialect a schema declares. Spellings differ between producers (http or https, with or
 * without the trailing `#`), so the URI is compared without those. Throws CONFIG for a `$schema`
 * that is not one of the supported dialects.
 */
export function schemaDialect(schema: JsonSchema, what: string): SchemaDialect {
  if (typeof schema !== 'object' || !Object.prototype.hasOwnProperty.call(schema, '$schema')) return '2020-12';
  const declared = schema.$schema;
  const key = typeof declared === 'string' ? declared.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/#$/, '') : undefined;
  for (const [dialect, { uri }] of Object.entries(DIALECTS) as [SchemaDialect, { uri: string }][]) {
    if (key === uri.replace(/^https?:\/\//, '').replace(/#$/, '')) return dialect;
  }
  throw new ConfigError(
    `The ${what} declares $schema ${JSON.stringify(declared)}, which is not a supported JSON Schema dialect. ` +
      `Use ${Object.values(DIALECTS).map((d) => `"${d.uri}"`).join(', ')}, or leave $schema out (read as 2020-12).`,
  );
}

/** Compiles a schema in its declared dialect; a schema ajv rejects is a CONFIG error naming `what`. */
export function compileSchema(schema: JsonSchema, what: string): SchemaValidator {
  return compileIn(schema, what, false);
}

function compileIn(schema: JsonSchema, what: string, vetted: boolean): SchemaValidator {
  const dialect = DIALECTS[schemaDialect(schema, what)];
  const key = `${dialect.family}${vetted ? ' vetted' : ''}`;
  let compiler = compilers.get(key);
  if (!compiler) compilers.set(key, (compiler = dialect.create(vetted ? VETTED_OPTIONS : OPTIONS)));
  // ajv finds the meta-schema by its exact URI; another spelling of the same dialect is rewritten.
  const input =
    typeof schema === 'object' && typeof schema.$schema === 'string' && schema.$schema !== dialect.uri
      ? { ...schema, $schema: dialect.uri }
      : schema;
  let validate: ReturnType<Compiler['compile']>;
  try {
    validate = compiler.compile(input as object | boolean);
  } catch (error) {
    throw new ConfigError(`The ${what} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map(describeError));
}

/**
 * A validator whose compile waits for its first use: the dialect is checked now (no ajv needed), the
 * schema compiled on the first call and not checked against its meta-schema. Only for schemas vetted
 * elsewhere (the built-in catalog's and run_code's, by src/builtin-tools/catalog-schemas.test.ts
 * through compileSchema), since a schema ajv rejects would be reported at the first call instead of
 * at registration.
 */
export function deferSchema(schema: JsonSchema, what: string): SchemaValidator {
  schemaDialect(schema, what);
  // A value the accept-only check vouches for needs no ajv; any other is ajv's to judge and word.
  const quick = quickAcceptOf(schema);
  let validate: SchemaValidator | undefined;
  return (value) => (quick?.(value) ? [] : (validate ??= compileIn(schema, what, true))(value));
}

function describeError(error: ErrorObject): string {
  let path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    path += `/${params.missingProperty}`;
    return `${path}: is required but missing`;
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${path || '(root)'}: has unknown property "${params.additionalProperty}"; remove it`;
  }
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${path || '(root)'}: ${message}`;
}
