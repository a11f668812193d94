// The contract of `read` (docs/builtin-tools.md): its arguments and its value as zod, the one source of
// its TypeScript types and of the JSON Schema the model sees (schemas.generated.ts).

import { z } from 'zod';
import { DEFAULT_READ_LIMIT_LINES } from '../limits.js';

export const input = z.strictObject({
  path: z.string().min(1).describe('File to read, relative to the workspace or absolute.'),
  offset: z.int().min(1).optional().describe('First line to return, 1-based. Default 1.'),
  limit: z.int().min(1).optional().describe(`Number of lines to return. Default ${DEFAULT_READ_LIMIT_LINES}.`),
});

export const output = z.strictObject({
  path: z.string().describe('The file, relative to the workspace when inside it.'),
  content: z.string().describe('The raw text of lines startLine..endLine, joined by newlines (no numbers).'),
  startLine: z.int().describe('Number of the first line returned (1-based).'),
  endLine: z.int().describe('Number of the last line returned; startLine - 1 when none.'),
  totalLines: z.int().describe('Number of lines in the whole file.'),
  truncated: z.boolean().describe('True when lines after endLine were not returned.'),
});
