// The `grep` tool: search file contents line by line with a JavaScript regular expression, over the
// files of a directory walk that respects `.gitignore` (docs/file-tools.md, docs/grep-regex.md).

import type { z } from 'zod';
import { ConfigError, ToolFailedError } from '../errors.js';
import { DEFAULT_GREP_TIMEOUT_MS, MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES, MAX_TOOL_OUTPUT_CHARS } from './limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { searchFiles } from './file-search.js';
import { compileGlob, skippedNames, type GlobMatcher } from './glob.js';
import { createLineMatcher } from './line-matcher.js';
import { createPathResolver, type FileToolOptions } from './path-resolver.js';
import { parentIgnores, walkFiles } from './walk-files.js';

type Contract = typeof import('./contracts/grep.js');
export type GrepArgs = ArgsOf<Contract>;
export type GrepOutput = ValueOf<Contract>;
export type GrepMatch = z.output<Contract['match']>;

export const GREP_DESCRIPTION =
  'Search file contents for a JavaScript regular expression, line by line (a match cannot span lines). ' +
  'Returns each matching line with its file (relative to the workspace) and line number, in file order, ' +
  'with the total number of matching lines. Searches `path` (a directory or one file; default: the ' +
  'workspace); `glob` limits which files are searched. Respects .gitignore files (nested ones, negation ' +
  'and directory patterns, as git does) and skips .git and node_modules unless glob names them; ' +
  '`no_ignore: true` searches ignored files and node_modules too. ' +
  `Binary files and files over ${MAX_GREP_FILE_BYTES / (1024 * 1024)} MiB are skipped. At most ${MAX_GREP_MATCHES} ` +
  'matches per call: when truncated is true, call again with offset = offset + the number of matches returned.';

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
    ...contractSchemas('grep', () => import('./contracts/grep.js')),
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
