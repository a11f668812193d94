// The contract of the one-shot `bash` (docs/builtin-tools.md): zod, the one source of its types and
// wire schemas. Only the description of `timeout_ms` depends on the tool's options; the generated
// schema has the default deadline and bash.ts puts another one in (bash-options.ts, bashTimeoutText).

import { z } from 'zod';
import { DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS, MIN_BASH_TIMEOUT_MS } from '../shell-limits.js';
import { bashTimeoutText } from '../bash-options.js';
import { sandboxReport } from './sandbox-report.js';

export function inputFor(defaultTimeoutMs: number) {
  return z.strictObject({
    command: z.string().min(1).describe('The command line, run with bash -c.'),
    description: z.string().optional().describe('A short label of what the command does, for logs and UIs.'),
    timeout_ms: z.int().min(MIN_BASH_TIMEOUT_MS).max(MAX_BASH_TIMEOUT_MS).optional().describe(bashTimeoutText(defaultTimeoutMs)),
  });
}

export const input = inputFor(DEFAULT_BASH_TIMEOUT_MS);

/** Where a spilled stream is and how big it was; `bytes` < `totalBytes` when the spill file limit cut it. */
export const spilledStream = z.strictObject({ path: z.string(), bytes: z.int(), totalBytes: z.int() });

export const output = z.strictObject({
  /** The exit code, or null when the command was ended by a signal. */
  exitCode: z.int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  /** True when stdout or stderr lost bytes to the bound. */
  truncated: z.boolean(),
  /** Set (true) when the command's processes went over the memory limit and a process of it was killed. */
  memoryLimited: z.boolean().optional(),
  /** A truncated stream written whole to the session's spill directory (docs/sessions.md, "Spill"). */
  spill: z.strictObject({ stdout: spilledStream.optional(), stderr: spilledStream.optional() }).optional(),
  sandbox: sandboxReport,
});
