// The contract of `task` (docs/subagents.md, docs/builtin-tools.md): zod, the one source of its types
// and wire schemas. `preset` has a refinement JSON Schema cannot carry (no .yml ending): ajv lets such a
// name through and the zod parse, loaded at the first call, refuses it with INVALID_ARGS.

import { z } from 'zod';
import { MAX_TASK_DESCRIPTION_CHARS } from '../limits.js';

/**
 * A preset name as `ptc presets list` shows them: no slash, no `.yml` ending, so it resolves only in
 * the preset directories (docs/presets.md, "Resolution"), never as a path.
 */
const PRESET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const NOT_A_NAME = 'give a preset name (letters, digits, -, _ and .), not a path: ptc, standard, minimal or a preset of this workspace';

export const input = z.strictObject({
  description: z.string().min(1).max(MAX_TASK_DESCRIPTION_CHARS).describe('A short label for the task (3-6 words), shown in logs and progress.'),
  prompt: z.string().min(1).describe('The complete task for the subagent, with everything it needs to know and what to answer.'),
  // A name, never a path: the host reads the preset file, so a path would let the model make it read
  // any file and report on it (docs/security.md, "Limits that hold").
  preset: z
    .string()
    .regex(PRESET_NAME, NOT_A_NAME)
    .refine((name) => !/\.ya?ml$/i.test(name), NOT_A_NAME)
    .optional()
    .describe('The preset the subagent is built from, by name: ptc (the default: it writes programs), standard (native tools), minimal, or a preset of this workspace.'),
});

export const output = z.string().describe("The subagent's final answer.");
