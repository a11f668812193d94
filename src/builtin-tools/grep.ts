// The `grep` tool: search file contents line by line with a JavaScript regular expression, over the
// files of a directory walk that respects `.gitignore` (docs/file-tools.md, docs/grep-regex.md).

import { ConfigError, ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { DEFAULT_GREP_TIMEOUT_MS, MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES, MAX_TOOL_OUTPUT_CHARS } from '../limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { searchFiles } from './file-search.js';
import { compileGlob, skippedNames, type GlobMatcher } from './glob.js';
import { createLineMatcher } from './line-matcher.js';
import { createPathResolver, type FileToolOptions } from './path-resolver.js';
import { parentIgnores, walkFiles } from './walk-files.js';

export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  ignore_case?: boolean;
  no_ignore?: boolean;
  offset?: number;
  limit?: number;
}

export type GrepMatch = {
  path: string;
  line: number;
  text: string;
};

export type GrepOutput = {
  pattern: string;
  path: string;
  matches: GrepMatch[];
  offset: number;
  totalMatches: number;
  truncated: boolean;
  filesWithMatches: number;
  filesSearched: number;
  filesSkipped: number;
};

export const GREP_DESCRIPTION =
  'Search file contents for a JavaScript regular expression, line by line (a match cannot span lines). ' +
  'Returns each matching line with its file (relative to the workspace) and line number, in file order, ' +
  'with the total number of matching lines. Searches `path` (a directory or one file; default: the ' +
  'workspace); `glob` limits which files are searched. Respects .gitignore files (nested ones, negation ' +
  'and directory patterns, as git does) and skips .git and node_modules unless glob names them; ' +
  '`no_ignore: true` searches ignored files and node_modules too. ' +
  `Binary files and files over ${MAX_GREP_FILE_BYTES / (1024 * 1024)} MiB are skipped. At most ${MAX_GREP_MATCHES} ` +
  'matches per call: when truncated is true, call again with offset = offset + the number of matches returned.';

export const GREP_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      description: 'JavaScript regular expression (no slashes or flags), e.g. "function\\s+load".',
    },
    path: {
      type: 'string',
      minLength: 1,
      description: 'Directory or file to search, relative to the workspace or absolute. Default: the workspace.',
    },
    glob: {
      type: 'string',
      minLength: 1,
      description:
        'Only search files matching this glob (syntax as for the glob tool). Without a "/" it matches file ' +
        'names at any depth ("*.ts"); with one, paths relative to path ("src/**/*.ts").',
    },
    ignore_case: { type: 'boolean', description: 'Match letters case-insensitively. Default false.' },
    no_ignore: {
      type: 'boolean',
      description: 'Also search files that .gitignore excludes, and node_modules. Default false.',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'Skip this many matches (counted over all files in order) before the first one returned. Default 0.',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_GREP_MATCHES,
      description: `Return at most this many matches. Default and maximum ${MAX_GREP_MATCHES}.`,
    },
  },
  required: ['pattern'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const GREP_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    pattern: { type: 'string', description: 'The pattern as given.' },
    path: { type: 'string', description: 'What was searched, relative to the workspace when inside it.' },
    matches: {
      type: 'array',
      description: 'Matching lines in file order, from offset on.',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file, relative to the workspace when inside it.' },
          line: { type: 'integer', description: 'Line number, 1-based.' },
          text: { type: 'string', description: 'The line, shortened when very long.' },
        },
        required: ['path', 'line', 'text'],
        additionalProperties: false,
      },
    },
    offset: { type: 'integer', description: 'Matches skipped before the first one returned.' },
    totalMatches: { type: 'integer', description: 'Matching lines in all searched files.' },
    truncated: {
      type: 'boolean',
      description: 'True when more matches follow these: call again with offset + matches.length.',
    },
    filesWithMatches: { type: 'integer', description: 'Files with at least one matching line.' },
    filesSearched: { type: 'integer', description: 'Files whose contents were searched.' },
    filesSkipped: { type: 'integer', description: 'Files skipped as binary or too large.' },
  },
  required: ['pattern', 'path', 'matches', 'offset', 'totalMatches', 'truncated', 'filesWithMatches', 'filesSearched', 'filesSkipped'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export interface GrepToolOptions extends FileToolOptions {
  /**
   * Deadline of one call's matching in ms (default DEFAULT_GREP_TIMEOUT_MS). The regex runs in a
   * worker thread (docs/grep-regex.md): a pattern that backtracks past it ends as TIMEOUT.
   */
  readonly timeoutMs?: number;
}

export function createGrepTool(options: GrepToolOptions): ToolDefinition<GrepArgs, GrepOutput> {
  const resolver = createPathResolver(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new ConfigError(`grep timeoutMs must be a positive integer of milliseconds, got ${String(timeoutMs)}.`);
  }
  return defineTool<GrepArgs, GrepOutput>({
    name: 'grep',
    description: GREP_DESCRIPTION,
    inputSchema: GREP_INPUT_SCHEMA,
    outputSchema: GREP_OUTPUT_SCHEMA,
    isConcurrencySafe: true,
    async execute(args, exec) {
      // Validates the pattern (INVALID_ARGS) and starts the call's matching deadline.
      const matcher = createLineMatcher({ pattern: args.pattern, ignoreCase: args.ignore_case === true, timeoutMs, signal: exec.signal });
      const filter = args.glob === undefined ? undefined : compileGlob(args.glob, 'glob');
      const byName = args.glob !== undefined && !args.glob.includes('/');
      const noIgnore = args.no_ignore === true;
      const offset = args.offset ?? 0;
      const limit = Math.min(args.limit ?? MAX_GREP_MATCHES, MAX_GREP_MATCHES);
      let target;
      try {
        target = resolver.resolve(args.path ?? '.', 'read');
      } catch (error) {
        matcher.close();
        throw error;
      }
      try {
        if (target.fd === undefined || target.stat === undefined) {
          throw new ToolFailedError(`${target.display} does not exist. Omit path to search the whole workspace.`);
        }
        const files = target.stat.isDirectory()
          ? walkFiles({
              root: target,
              resolver,
              signal: exec.signal,
              tool: 'grep',
              skipNames: skippedNames(filter, noIgnore),
              keepNames: filter?.literalSegments,
              enter: filter && !byName ? (dir) => filter.mayContain(dir) : undefined,
              ignore: noIgnore ? undefined : parentIgnores(resolver, target),
            })
          : [{ absolute: target.absolute, fd: target.fd }];
        const found = await searchFiles({
          files,
          matcher,
          signal: exec.signal,
          tool: 'grep',
          accept: filter ? (file) => passesFilter(filter, byName, file.relative) : undefined,
          display: (absolute) => resolver.display(absolute),
          offset,
          limit,
          maxChars: MAX_TOOL_OUTPUT_CHARS,
        });
        return {
          pattern: args.pattern,
          path: target.display,
          matches: found.hits,
          offset,
          totalMatches: found.totalMatches,
          truncated: offset + found.hits.length < found.totalMatches,
          filesWithMatches: found.filesWithMatches,
          filesSearched: found.filesSearched,
          filesSkipped: found.filesSkipped,
        };
      } finally {
        matcher.close();
        target.close();
      }
    },
    renderContent(value) {
      const notes: string[] = [];
      const shownEnd = value.offset + value.matches.length;
      if (value.truncated) {
        notes.push(
          `[Matches ${value.offset + 1}-${shownEnd} of ${value.totalMatches} (in ${value.filesWithMatches} ` +
            `file${value.filesWithMatches === 1 ? '' : 's'}). Call grep again with offset ${shownEnd} for more, ` +
            'or narrow the pattern, path or glob.]',
        );
      }
      if (value.filesSkipped > 0) {
        notes.push(`[Skipped ${value.filesSkipped} binary or oversized file${value.filesSkipped === 1 ? '' : 's'}.]`);
      }
      const searched = `${value.filesSearched} file${value.filesSearched === 1 ? '' : 's'} under ${value.path}`;
      const body =
        value.totalMatches === 0
          ? `No matches for /${value.pattern}/ in ${searched}.`
          : value.matches.length === 0
            ? `No matches from offset ${value.offset}: /${value.pattern}/ has ${value.totalMatches} in ${searched}.`
            : value.matches.map((m) => `${m.path}:${m.line}:${m.text}`).join('\n');
      return notes.length === 0 ? body : `${body}\n\n${notes.join('\n')}`;
    },
  });
}

function passesFilter(filter: GlobMatcher, byName: boolean, relative: string): boolean {
  return filter.matches(byName ? relative.slice(relative.lastIndexOf('/') + 1) : relative);
}
