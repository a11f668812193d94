// The contract of `grep` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';
import { MAX_GREP_MATCHES } from '../limits.js';

export const input = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression (no slashes or flags), e.g. "function\\s+load".'),
  path: z.string().min(1).optional().describe('Directory or file to search, relative to the workspace or absolute. Default: the workspace.'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only search files matching this glob (syntax as for the glob tool). Without a "/" it matches file ' +
        'names at any depth ("*.ts"); with one, paths relative to path ("src/**/*.ts").',
    ),
  ignore_case: z.boolean().optional().describe('Match letters case-insensitively. Default false.'),
  no_ignore: z.boolean().optional().describe('Also search files that .gitignore excludes, and node_modules. Default false.'),
  offset: z.int().min(0).optional().describe('Skip this many matches (counted over all files in order) before the first one returned. Default 0.'),
  limit: z.int().min(1).max(MAX_GREP_MATCHES).optional().describe(`Return at most this many matches. Default and maximum ${MAX_GREP_MATCHES}.`),
});

export const match = z.strictObject({
  path: z.string().describe('The file, relative to the workspace when inside it.'),
  line: z.int().describe('Line number, 1-based.'),
  text: z.string().describe('The line, shortened when very long.'),
});

export const output = z.strictObject({
  pattern: z.string().describe('The pattern as given.'),
  path: z.string().describe('What was searched, relative to the workspace when inside it.'),
  matches: z.array(match).describe('Matching lines in file order, from offset on.'),
  offset: z.int().describe('Matches skipped before the first one returned.'),
  totalMatches: z.int().describe('Matching lines in all searched files.'),
  truncated: z.boolean().describe('True when more matches follow these: call again with offset + matches.length.'),
  filesWithMatches: z.int().describe('Files with at least one matching line.'),
  filesSearched: z.int().describe('Files whose contents were searched.'),
  filesSkipped: z.int().describe('Files skipped as binary or too large.'),
});
