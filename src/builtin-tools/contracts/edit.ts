// The contract of `edit` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';

export const input = z.strictObject({
  path: z.string().min(1).describe('File to edit, relative to the workspace or absolute.'),
  old_string: z.string().min(1).describe('The exact text to replace (without the line-number prefix that read shows).'),
  new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one. Default false.'),
});

export const output = z.strictObject({
  path: z.string().describe('The file, relative to the workspace when inside it.'),
  replacements: z.int().describe('How many occurrences were replaced.'),
});
