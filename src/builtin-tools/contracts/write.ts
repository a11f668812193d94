// The contract of `write` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';

export const input = z.strictObject({
  path: z.string().min(1).describe('File to write, relative to the workspace or absolute.'),
  content: z.string().describe('The complete new contents of the file (UTF-8).'),
});

export const output = z.strictObject({
  path: z.string().describe('The file, relative to the workspace when inside it.'),
  bytes: z.int().describe('Bytes written (UTF-8).'),
  created: z.boolean().describe('True when the file did not exist before.'),
});
