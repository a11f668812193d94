// A parsing schema loaded at its first use. The built-in tools' zod contracts are imported only when a
// call first needs its arguments parsed, so listing or presenting tools loads no contract
// (docs/builtin-tools.md, "Start-up").

import type { ParseResult, ParsingSchema } from './parsing-schema.js';

/** A schema that imports the real one on the first `validate` and answers synchronously after that. */
export function lazyParsingSchema(load: () => Promise<ParsingSchema>): ParsingSchema {
  let loaded: ParsingSchema | undefined;
  let loading: Promise<ParsingSchema> | undefined;
  const validate = (value: unknown): ParseResult | Promise<ParseResult> => {
    if (loaded !== undefined) return loaded['~standard'].validate(value);
    loading ??= load().then(
      (schema) => (loaded = schema),
      (error: unknown) => {
        // A failed import is retried at the next call rather than remembered.
        loading = undefined;
        throw error;
      },
    );
    return loading.then((schema) => schema['~standard'].validate(value));
  };
  return { '~standard': { validate } };
}
