// JSON Schema (2020-12) validation with ajv, compiled once per schema at registration.

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../json.js';

/** Returns `path: message` lines; empty when the value is valid. */
export type SchemaValidator = (value: unknown) => string[];

const ajv = new Ajv2020({
  allErrors: true,
  // Tool schemas come from many authors (MCP servers among them): unknown keywords and formats
  // must not stop registration; they simply do not constrain.
  strict: false,
  validateFormats: false,
});

/** Compiles a schema; a schema ajv rejects is a CONFIG error naming `what`. */
export function compileSchema(schema: JsonSchema, what: string): SchemaValidator {
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema as object | boolean);
  } catch (error) {
    throw new ConfigError(`The ${what} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map(describeError));
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
