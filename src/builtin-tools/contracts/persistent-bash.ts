// The contract of the persistent `bash` of the minimal preset (docs/builtin-tools.md): zod, the one
// source of its types and wire schemas. As for the one-shot bash, only the description of
// `timeout_ms` depends on the options (bash-options.ts, persistentBashTimeoutText).

import { z } from 'zod';
import { DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS, MIN_BASH_TIMEOUT_MS } from '../shell-limits.js';
import { persistentBashTimeoutText } from '../bash-options.js';
import { sandboxReport } from './sandbox-report.js';

export function inputFor(defaultTimeoutMs: number) {
  return z.strictObject({
    command: z
      .string()
      .min(1)
      .optional()
      .describe('The command line to run in the shell (any bash syntax; several lines are fine). Required unless restart is true.'),
    restart: z.boolean().optional().describe('Kill the shell and everything it started, then start a fresh one (and run command in it, if given).'),
    description: z.string().optional().describe('A short label of what the command does, for logs and UIs.'),
    timeout_ms: z.int().min(MIN_BASH_TIMEOUT_MS).max(MAX_BASH_TIMEOUT_MS).optional().describe(persistentBashTimeoutText(defaultTimeoutMs)),
  });
}

export const input = inputFor(DEFAULT_BASH_TIMEOUT_MS);

export const output = z.strictObject({
  /** The command's `$?` (128 + N after signal N); the shell's exit code when the command ended the shell; null when nothing ran to completion. */
  exitCode: z.int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  /** True when stdout or stderr lost bytes to the bound. */
  truncated: z.boolean(),
  /** Set (true) when the command's processes went over the memory limit and a process of it was killed. */
  memoryLimited: z.boolean().optional(),
  /** `started`: the first shell of this tool; `reused`: the previous call's shell; `restarted`: a fresh shell replacing one that ended or was restarted on request. */
  shell: z.enum(['started', 'reused', 'restarted']),
  /** True when the shell is gone after this call (the command exited it, or it was killed at the deadline); the next call starts a fresh one. */
  shellEnded: z.boolean(),
  sandbox: sandboxReport,
});
