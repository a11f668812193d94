// The `glob` tool, plus the glob matcher `grep` shares with it. The directory walk both use (with its
// `.gitignore` handling) is in walk-files.ts.


import { InvalidArgsError, ToolFailedError } from '../errors.js';
import { MAX_GLOB_BRACE_EXPANSIONS, MAX_GLOB_RESULTS, MAX_TOOL_OUTPUT_CHARS } from './limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { createPathResolver, type FileToolOptions, type OpenedPath } from './path-resolver.js';
import { compareStrings, parentIgnores, walkFiles } from './walk-files.js';

type Contract = typeof import('./contracts/glob.js');
export type GlobArgs = ArgsOf<Contract>;
export type GlobOutput = ValueOf<Contract>;

/** Directories a walk does not enter unless the pattern names them as a path segment. */
export const SKIPPED_DIR_NAMES: readonly string[] = ['.git', 'node_modules'];

export const GLOB_DESCRIPTION =
  'Find files whose path matches a glob pattern. The pattern is matched against paths relative to ' +
  '`path` (default: the workspace) and supports `*` (any characters except /), `?` (one character), ' +
  '`[abc]`, `[a-z]`, `[!a-z]` (character classes), `{a,b}` (alternatives) and `**` as a whole segment ' +
  '(any number of directories). So `*.ts` matches only directly in `path`, `**/*.ts` at any depth. ' +
  'Case-sensitive; hidden files are included; respects .gitignore files (as git does) and skips .git and ' +
  'node_modules unless the pattern names them; `no_ignore: true` lists ignored files and node_modules too. ' +
  `Returns files (not directories), sorted, relative to the workspace, with their total; at most ${MAX_GLOB_RESULTS} ` +
  'per call: when truncated is true, call again with offset = offset + the number of files returned.';

export function createGlobTool(options: FileToolOptions): ToolDefinition<GlobArgs, GlobOutput> {
  const resolver = createPathResolver(options);
  return defineTool<GlobArgs, GlobOutput>({
    name: 'glob',
    description: GLOB_DESCRIPTION,
    ...contractSchemas('glob', () => import('./contracts/glob.js')),
    isConcurrencySafe: true,
    async execute(args, exec) {
      const matcher = compileGlob(args.pattern, 'pattern');
      const noIgnore = args.no_ignore === true;
      const offset = args.offset ?? 0;
      const limit = Math.min(args.limit ?? MAX_GLOB_RESULTS, MAX_GLOB_RESULTS);
      const root = resolver.resolve(args.path ?? '.', 'read');
      try {
        requireDirectory(root);
        const all: string[] = [];
        const walk = walkFiles({
          root,
          resolver,
          signal: exec.signal,
          tool: 'glob',
          skipNames: skippedNames(matcher, noIgnore),
          keepNames: matcher.literalSegments,
          enter: (dir) => matcher.mayContain(dir),
          ignore: noIgnore ? undefined : parentIgnores(resolver, root),
        });
        for await (const run of walk) {
          for (const file of run) if (matcher.matches(file.relative)) all.push(resolver.display(file.absolute));
        }
        all.sort(compareStrings);
        const files: string[] = [];
        let chars = 0;
        for (const shown of all.slice(offset, offset + limit)) {
          // The page stays contiguous and within the output budget; the rest waits for the next offset.
          if (files.length > 0 && chars + shown.length + 1 > MAX_TOOL_OUTPUT_CHARS) break;
          files.push(shown);
          chars += shown.length + 1;
        }
        return { pattern: args.pattern, path: root.display, files, offset, totalFiles: all.length, truncated: offset + files.length < all.length };
      } finally {
        root.close();
      }
    },
    renderContent(value) {
      if (value.totalFiles === 0) return `No files under ${value.path} match ${value.pattern}.`;
      if (value.files.length === 0) return `No files from offset ${value.offset}: ${value.totalFiles} under ${value.path} match ${value.pattern}.`;
      const list = value.files.join('\n');
      if (!value.truncated) return list;
      const end = value.offset + value.files.length;
      return (
        `${list}\n\n[Files ${value.offset + 1}-${end} of ${value.totalFiles}. ` +
        `Call glob again with offset ${end} for more, or use a narrower pattern or path.]`
      );
    },
  });
}

function requireDirectory(root: OpenedPath): void {
  if (root.stat === undefined) throw new ToolFailedError(`${root.display} does not exist. Omit path to search the workspace.`);
  if (!root.stat.isDirectory()) {
    throw new ToolFailedError(`${root.display} is a file, not a directory. Use read to see it, or give its directory as path.`);
  }
}

/** The default skip list minus the names the pattern mentions as a literal segment; with `noIgnore`, only `.git`. */
export function skippedNames(matcher: GlobMatcher | undefined, noIgnore = false): ReadonlySet<string> {
  const names = noIgnore ? ['.git'] : SKIPPED_DIR_NAMES;
  return new Set(names.filter((name) => !matcher?.literalSegments.has(name)));
}

/** A compiled glob pattern. Paths are relative and `/`-separated. */
export interface GlobMatcher {
  /** True when the file path matches. */
  matches(relativePath: string): boolean;
  /** False when no file below this directory can match, so a walk may skip it. */
  mayContain(relativeDir: string): boolean;
  /** Segments of the pattern without wildcards, e.g. `node_modules` in `node_modules/x/*.js`. */
  readonly literalSegments: ReadonlySet<string>;
}

type Segment = { readonly globstar: true } | { readonly globstar: false; readonly re: RegExp; readonly literal?: string };

/** Compiles `pattern`; throws INVALID_ARGS (naming `argName`) for a pattern it cannot use. */
export function compileGlob(pattern: string, argName: string): GlobMatcher {
  const alternatives: string[] = [];
  expandBraces(pattern, alternatives, argName);
  const compiled = alternatives.map((alt) => compileAlternative(alt, argName));
  const literalSegments = new Set<string>();
  for (const segments of compiled) {
    for (const segment of segments) if (!segment.globstar && segment.literal !== undefined) literalSegments.add(segment.literal);
  }
  return {
    literalSegments,
    matches: (relativePath) => {
      const parts = relativePath.split('/');
      return compiled.some((segments) => matchSegments(segments, 0, parts, 0, false));
    },
    mayContain: (relativeDir) => {
      const parts = relativeDir === '' ? [] : relativeDir.split('/');
      return compiled.some((segments) => matchSegments(segments, 0, parts, 0, true));
    },
  };
}

function compileAlternative(pattern: string, argName: string): Segment[] {
  if (pattern.startsWith('/')) {
    throw new InvalidArgsError(
      `${argName} "${pattern}" is absolute; patterns are relative. Put the directory in path and the rest in ${argName}.`,
    );
  }
  // Empty and `.` segments mean nothing; a run of `**` means the same as one and would only cost time.
  const parts = pattern
    .split('/')
    .filter((part, i, all) => part !== '' && part !== '.' && !(part === '**' && all[i - 1] === '**'));
  if (parts.includes('..')) {
    throw new InvalidArgsError(`${argName} "${pattern}" contains "..". Set path to the directory to search instead.`);
  }
  if (parts.length === 0) throw new InvalidArgsError(`${argName} "${pattern}" matches no file name. Try "**/*".`);
  return parts.map((part) => (part === '**' ? { globstar: true } : compileSegment(part, argName)));
}

function compileSegment(part: string, argName: string): Segment {
  let source = '';
  let literal = '';
  let magic = false;
  for (let i = 0; i < part.length; i++) {
    const c = part[i] ?? '';
    if (c === '\\' && i + 1 < part.length) {
      const next = part[++i] ?? '';
      source += escapeRegExp(next);
      literal += next;
    } else if (c === '*') {
      magic = true;
      while (part[i + 1] === '*') i++;
      source += '[^/]*';
    } else if (c === '?') {
      magic = true;
      source += '[^/]';
    } else if (c === '[' && findClassEnd(part, i) !== -1) {
      const end = findClassEnd(part, i);
      magic = true;
      source += classToRegExp(part.slice(i + 1, end));
      i = end;
    } else {
      source += escapeRegExp(c);
      literal += c;
    }
  }
  let re: RegExp;
  try {
    re = new RegExp(`^${source}$`);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new InvalidArgsError(`${argName} segment "${part}" is not a valid glob: ${detail}. Check its [...] ranges.`);
  }
  return magic ? { globstar: false, re } : { globstar: false, re, literal };
}

/** Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal). */
function findClassEnd(text: string, start: number): number {
  let i = start + 1;
  if (text[i] === '!' || text[i] === '^') i++;
  if (text[i] === ']') i++; // a leading `]` is a member, not the end
  for (; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ']') return i;
  }
  return -1;
}

function classToRegExp(body: string): string {
  let i = 0;
  let out = '[';
  if (body[0] === '!' || body[0] === '^') {
    out += '^';
    i = 1;
  }
  for (; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c === '\\' && i + 1 < body.length) out += `\\${body[++i] ?? ''}`;
    else if (c === '-') out += '-';
    else out += escapeRegExp(c);
  }
  return `${out}]`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Expands `{a,b}` alternatives (nested too) into separate patterns; a brace without a comma is literal. */
function expandBraces(pattern: string, out: string[], argName: string): void {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const end = findClassEnd(pattern, i);
      if (end !== -1) i = end;
      continue;
    }
    if (c !== '{') continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = i; j < pattern.length && close === -1; j++) {
      const d = pattern[j];
      if (d === '\\') j++;
      else if (d === '{') depth++;
      else if (d === '}' && --depth === 0) close = j;
      else if (d === ',' && depth === 1) commas.push(j);
    }
    if (close === -1 || commas.length === 0) continue;
    const head = pattern.slice(0, i);
    const tail = pattern.slice(close + 1);
    const cuts = [i, ...commas, close];
    for (let k = 0; k + 1 < cuts.length; k++) {
      expandBraces(head + pattern.slice((cuts[k] ?? 0) + 1, cuts[k + 1]) + tail, out, argName);
    }
    return;
  }
  if (out.length >= MAX_GLOB_BRACE_EXPANSIONS) {
    throw new InvalidArgsError(
      `${argName} expands to more than ${MAX_GLOB_BRACE_EXPANSIONS} alternatives. Use fewer {a,b} groups.`,
    );
  }
  out.push(pattern);
}

/** Matches path parts against pattern segments; with `partial`, asks whether a longer path could match. */
function matchSegments(segments: readonly Segment[], si: number, parts: readonly string[], pi: number, partial: boolean): boolean {
  for (;;) {
    if (pi === parts.length) {
      if (partial) return si < segments.length;
      return segments.slice(si).every((segment) => segment.globstar);
    }
    const segment = segments[si];
    if (segment === undefined) return false;
    if (segment.globstar) {
      // `**` matches nothing here, or swallows this part and stays.
      if (matchSegments(segments, si + 1, parts, pi, partial)) return true;
      pi++;
      continue;
    }
    if (!segment.re.test(parts[pi] ?? '')) return false;
    si++;
    pi++;
  }
}
