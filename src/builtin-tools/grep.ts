// The `grep` tool: search file contents line by line with a JavaScript regular expression.

import * as fs from 'node:fs';
import path from 'node:path';

import { ConfigError, ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import {
  BINARY_SNIFF_BYTES,
  DEFAULT_GREP_TIMEOUT_MS,
  GREP_BATCH_CHARS,
  MAX_GREP_FILE_BYTES,
  MAX_GREP_MATCHES,
  MAX_TOOL_OUTPUT_CHARS,
} from '../limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { looksBinary, throwIfAborted } from './fs-errors.js';
import { compileGlob, skippedNames, type GlobMatcher } from './glob.js';
import { createLineMatcher, type LineMatcher } from './line-matcher.js';
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
        const batch = new MatchBatch(matcher, result);
        for await (const file of files) {
          throwIfAborted(exec.signal, 'grep');
          if (isDirectory && filter && !passesFilter(filter, byName, file.relative)) continue;
          const text = await loadSearchable(file);
          if (text === undefined) {
            result.filesSkipped++;
            continue;
          }
          result.filesSearched++;
          batch.add(resolver.display(file.absolute), text);
          if (batch.pendingChars >= GREP_BATCH_CHARS) await batch.flush();
          if (result.truncated) break;
        }
        if (!result.truncated) await batch.flush();
        return result;
      } finally {
        target.close();
        matcher.close();
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

function passesFilter(filter: GlobMatcher, byName: boolean, relative: string): boolean {
  return filter.matches(byName ? relative.slice(relative.lastIndexOf('/') + 1) : relative);
}

/**
 * Files waiting to be matched, sent to the regex worker together (one round trip for many small
 * files). Matches are appended to the result in file order until the match or output budget runs
 * out; then `truncated` is set and the files after the last one shown no longer count as searched.
 */
class MatchBatch {
  readonly #matcher: LineMatcher;
  readonly #result: GrepOutput;
  #files: { readonly shown: string; readonly text: string }[] = [];
  #shownChars = 0;
  /** Characters of text waiting to be matched. */
  pendingChars = 0;

  constructor(matcher: LineMatcher, result: GrepOutput) {
    this.#matcher = matcher;
    this.#result = result;
  }

  add(shown: string, text: string): void {
    this.#files.push({ shown, text });
    this.pendingChars += text.length;
  }

  async flush(): Promise<void> {
    const files = this.#files;
    this.#files = [];
    this.pendingChars = 0;
    if (files.length === 0) return;
    const result = this.#result;
    // One more than fits, so the worker tells whether matches remain beyond the limit.
    const found = await this.#matcher.matchMany(
      files.map((file) => file.text),
      { maxMatches: MAX_GREP_MATCHES - result.matches.length + 1 },
    );
    for (let k = 0; k < files.length; k++) {
      const numbers = found[k] ?? [];
      if (numbers.length === 0) continue;
      const { shown, text } = files[k] as { shown: string; text: string };
      const lines = splitLines(text);
      for (const n of numbers) {
        const match: GrepMatch = { path: shown, line: n, text: shortenLine(lines[n - 1] ?? '') };
        const size = match.path.length + match.text.length + 16;
        if (result.matches.length >= MAX_GREP_MATCHES || this.#shownChars + size > MAX_TOOL_OUTPUT_CHARS) {
          result.truncated = true;
          result.filesSearched -= files.length - 1 - k;
          return;
        }
        result.matches.push(match);
        this.#shownChars += size;
      }
    }
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
