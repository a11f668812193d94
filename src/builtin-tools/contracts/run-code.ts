// The contract of `run_code`, PTC mode's transport (src/ptc/run-code.ts, docs/builtin-tools.md): zod,
// the one source of its types and wire schemas. The bounds and the default of `timeoutMs` are the code
// runtime's; the generated schema has the harness defaults and run-code.ts puts a runtime's in
// (runCodeTimeout), tested against inputFor.

import { z } from 'zod';
import type { JsonValue } from '../../json.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../../limits.js';
import type { TimeoutDescriptor } from '../../ptc-runtime/types.js';
import { runCodeTimeoutText } from './run-code-text.js';

export function inputFor(timeout: TimeoutDescriptor) {
  return z.strictObject({
    code: z.string().describe('The program: the body of an async TypeScript function.'),
    description: z.string().describe('A short label of what the program does (for logs and UIs).'),
    timeoutMs: z.int().min(timeout.minMs).max(timeout.maxMs).optional().describe(runCodeTimeoutText(timeout.defaultMs)),
  });
}

export const input = inputFor({ defaultMs: DEFAULT_TIMEOUT_MS, minMs: MIN_TIMEOUT_MS, maxMs: MAX_TIMEOUT_MS });

/** Any JSON value: what the program returned, already checked as JSON by the runtime (JSON Schema `{}`). */
const programResult = z.unknown() as z.ZodType<JsonValue>;

export const output = z.object({
  logs: z.array(z.string()),
  result: programResult.optional(),
});
