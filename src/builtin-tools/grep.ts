// The `grep` tool: search file contents line by line with a JavaScript regular expression.

import * as fs from 'node:fs';
import path from 'node:path';

import { InvalidArgsError, ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { BINARY_SNIFF_BYTES, MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES, MAX_TOOL_OUTPUT_CHARS } from '../limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { looksBinary, throwIfAborted } from './fs-errors.js';
import { compileGlob, skippedNames, type GlobMatcher } from './glob.js';
import { createPathResolver, type FileToolOptions, type OpenedPath } from './path-resolver.js';
import { shortenLine, splitLines } from './read.js';
import { closeQuietly, readAllFd } from './safe-fs.js';
import { walkFiles, type WalkedFile } from './walk-files.js';

export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  ignore_case?: boolean;
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
  truncated: boolean;
  filesSearched: number;
  filesSkipped: number;
};

/** How many lines to scan between abort checks inside one file. */
const LINES_PER_ABORT_CHECK = 10_000;

export const GREP_DESCRIPTION =
  'Search file contents for a JavaScript regular expression, line by line (a match cannot span lines). ' +
  'Returns each matching line with its file (relative to the workspace) and line number. Searches ' +
  '`path` (a directory or one file; default: the workspace); `glob` limits which files are searched. ' +
  `Binary files and files over ${MAX_GREP_FILE_BYTES / (1024 * 1024)} MiB are skipped, as are .git and ` +
  `node_modules unless glob names them. At most ${MAX_GREP_MATCHES} matches are returned.`;

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
      description: 'Matching lines in file order.',
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
    truncated: { type: 'boolean', description: 'True when the search stopped at the match limit.' },
    filesSearched: { type: 'integer', description: 'Files whose contents were searched.' },
    filesSkipped: { type: 'integer', description: 'Files skipped as binary or too large.' },
  },
  required: ['pattern', 'path', 'matches', 'truncated', 'filesSearched', 'filesSkipped'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export function createGrepTool(options: FileToolOptions): ToolDefinition<GrepArgs, GrepOutput> {
  const resolver = createPathResolver(options);
  return defineTool<GrepArgs, GrepOutput>({
    name: 'grep',
    description: GREP_DESCRIPTION,
    inputSchema: GREP_INPUT_SCHEMA,
    outputSchema: GREP_OUTPUT_SCHEMA,
    isConcurrencySafe: true,
    async execute(args, exec) {
      const regex = compileRegex(args.pattern, args.ignore_case === true);
      const filter = args.glob === undefined ? undefined : compileGlob(args.glob, 'glob');
      const byName = args.glob !== undefined && !args.glob.includes('/');
      const target = resolver.resolve(args.path ?? '.', 'read');
      try {
        if (target.fd === undefined || target.stat === undefined) {
          throw new ToolFailedError(`${target.display} does not exist. Omit path to search the whole workspace.`);
        }
        const isDirectory = target.stat.isDirectory();
        const files: AsyncIterable<WalkedFile> | WalkedFile[] = isDirectory
          ? walkFiles({
              root: target,
              resolver,
              signal: exec.signal,
              tool: 'grep',
              skipNames: skippedNames(filter),
              enter: filter && !byName ? (dir) => filter.mayContain(dir) : undefined,
            })
          : [{ absolute: target.absolute, relative: path.basename(target.absolute), open: () => reopen(target) }];

        const result: GrepOutput = {
          pattern: args.pattern,
          path: target.display,
          matches: [],
          truncated: false,
          filesSearched: 0,
          filesSkipped: 0,
        };
        const budget = { chars: 0 };
        for await (const file of files) {
          throwIfAborted(exec.signal, 'grep');
          if (isDirectory && filter && !passesFilter(filter, byName, file.relative)) continue;
          const text = await loadSearchable(file);
          if (text === undefined) {
            result.filesSkipped++;
            continue;
          }
          result.filesSearched++;
          searchLines(text, regex, resolver.display(file.absolute), result, budget, exec.signal);
          if (result.truncated) break;
        }
        return result;
      } finally {
        target.close();
      }
    },
    renderContent(value) {
      const notes: string[] = [];
      if (value.truncated) {
        notes.push(
          `[Stopped after ${value.matches.length} matches; there are more. Narrow the pattern, path or glob to see the rest.]`,
        );
      }
      if (value.filesSkipped > 0) {
        notes.push(`[Skipped ${value.filesSkipped} binary or oversized file${value.filesSkipped === 1 ? '' : 's'}.]`);
      }
      const body =
        value.matches.length === 0
          ? `No matches for /${value.pattern}/ in ${value.filesSearched} file${value.filesSearched === 1 ? '' : 's'} under ${value.path}.`
          : value.matches.map((m) => `${m.path}:${m.line}:${m.text}`).join('\n');
      return notes.length === 0 ? body : `${body}\n\n${notes.join('\n')}`;
    },
  });
}

function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new InvalidArgsError(
      `pattern is not a valid JavaScript regular expression (${detail}). To match one of ( ) [ ] { } . * + ? ^ $ | \\ ` +
        'literally, put a backslash before it, e.g. "foo\\(" for "foo(".',
    );
  }
}

function passesFilter(filter: GlobMatcher, byName: boolean, relative: string): boolean {
  return filter.matches(byName ? relative.slice(relative.lastIndexOf('/') + 1) : relative);
}

/**
 * The matching loop over one file's text: appends matching lines to `result` until the match or
 * output budget runs out (then sets `truncated`). Kept apart so the regex can run elsewhere.
 */
function searchLines(
  text: string,
  regex: RegExp,
  shown: string,
  result: GrepOutput,
  budget: { chars: number },
  signal: AbortSignal,
): void {
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    if (i % LINES_PER_ABORT_CHECK === 0) throwIfAborted(signal, 'grep');
    const line = lines[i] ?? '';
    if (!regex.test(line)) continue;
    const match: GrepMatch = { path: shown, line: i + 1, text: shortenLine(line) };
    const size = match.path.length + match.text.length + 16;
    if (result.matches.length >= MAX_GREP_MATCHES || budget.chars + size > MAX_TOOL_OUTPUT_CHARS) {
      result.truncated = true;
      return;
    }
    result.matches.push(match);
    budget.chars += size;
  }
}

/** A second descriptor on the object `target` already holds (the walk's file entries close theirs). */
function reopen(target: OpenedPath): number | undefined {
  if (target.fd === undefined) return undefined;
  try {
    return fs.openSync(`/proc/self/fd/${target.fd}`, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/** The file's text, or undefined when it is binary, too large, or cannot be read (skipped, not fatal). */
async function loadSearchable(file: WalkedFile): Promise<string | undefined> {
  const fd = file.open();
  if (fd === undefined) return undefined;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_GREP_FILE_BYTES) return undefined;
    const bytes = await readAllFd(fd, MAX_GREP_FILE_BYTES, stat.size);
    if (bytes === undefined || looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) return undefined;
    return new TextDecoder('utf-8').decode(bytes);
  } catch {
    return undefined;
  } finally {
    closeQuietly(fd);
  }
}
