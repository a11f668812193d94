// The contract of `glob` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';
import { MAX_GLOB_RESULTS } from '../limits.js';

export const input = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "src/**/*.{ts,tsx}".'),
  path: z.string().min(1).optional().describe('Directory to search from, relative to the workspace or absolute. Default: the workspace.'),
  no_ignore: z.boolean().optional().describe('Also list files that .gitignore excludes, and node_modules. Default false.'),
  offset: z.int().min(0).optional().describe('Skip this many files of the sorted list. Default 0.'),
  limit: z.int().min(1).max(MAX_GLOB_RESULTS).optional().describe(`Return at most this many files. Default and maximum ${MAX_GLOB_RESULTS}.`),
});

export const output = z.strictObject({
  pattern: z.string().describe('The pattern as given.'),
  path: z.string().describe('The directory searched, relative to the workspace when inside it.'),
  files: z.array(z.string()).describe('Matching files, sorted, relative to the workspace when inside it, from offset on.'),
  offset: z.int().describe('Files of the sorted list skipped before the first one returned.'),
  totalFiles: z.int().describe('All files that match.'),
  truncated: z.boolean().describe('True when more files follow these: call again with offset + files.length.'),
});
