// `.gitignore` rules for the `grep` and `glob` walks, following git's documented rules (gitignore(5)):
// blank lines and `#` comments are skipped, trailing spaces dropped unless escaped, `!` re-includes, a
// trailing `/` matches directories only, a pattern with a `/` at its start or middle is anchored to the
// directory of its `.gitignore`, any other pattern matches a name at any depth below it; `*`, `?`,
// `[...]` never match `/`, and `**` as a whole segment spans directories. The last matching rule of the
// deepest `.gitignore` that has one decides. A directory that is ignored is not entered, so nothing
// below it can be re-included (as in git). See docs/file-tools.md.

/** One compiled line of a `.gitignore`. */
interface IgnoreRule {
  readonly negate: boolean;
  readonly dirOnly: boolean;
  /** True when the pattern is matched against the path relative to its file's directory, else the name. */
  readonly anchored: boolean;
  readonly re: RegExp;
}

/** The rules of one `.gitignore` file, with the directory (relative to the walk root, `/`-separated) it sits in. */
export interface IgnoreFile {
  /** `''` for the walk root, else e.g. `pkg/src`. */
  readonly base: string;
  readonly rules: readonly IgnoreRule[];
}

/** Parses the text of a `.gitignore` in the directory `base` (relative to the walk root). */
export function parseGitignore(text: string, base: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split('\n')) {
    const rule = compileRule(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (rule !== undefined) rules.push(rule);
  }
  return { base, rules };
}

function compileRule(line: string): IgnoreRule | undefined {
  let text = trimTrailingSpaces(line);
  if (text === '' || text.startsWith('#')) return undefined;
  let negate = false;
  if (text.startsWith('!')) {
    negate = true;
    text = text.slice(1);
  } else if (text.startsWith('\\!') || text.startsWith('\\#')) {
    text = text.slice(1);
  }
  let dirOnly = false;
  if (text.endsWith('/') && !text.endsWith('\\/')) {
    dirOnly = true;
    text = text.replace(/\/+$/, '');
  }
  if (text === '') return undefined;
  const anchored = text.includes('/');
  if (text.startsWith('/')) text = text.slice(1);
  const source = globToRegExpSource(text);
  if (source === undefined) return undefined;
  return { negate, dirOnly, anchored, re: new RegExp(`^${source}$`) };
}

/** Drops trailing spaces that are not escaped with a backslash (git keeps `\ `). */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ') {
    let slashes = 0;
    for (let i = end - 2; i >= 0 && line[i] === '\\'; i--) slashes++;
    if (slashes % 2 === 1) break;
    end--;
  }
  return line.slice(0, end);
}

/** The regex source of a gitignore glob, or undefined when it cannot match anything (a broken class). */
function globToRegExpSource(glob: string): string | undefined {
  const segments = glob.split('/');
  const out: string[] = [];
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s] as string;
    const last = s === segments.length - 1;
    if (segment === '**') {
      // Leading `**/`: any directories (or none); trailing `/**`: everything inside; middle: zero or more.
      if (last) out.push(s === 0 ? '.*' : '.+');
      else out.push('(?:[^/]+/)*');
      continue;
    }
    const part = segmentSource(segment);
    if (part === undefined) return undefined;
    out.push(last ? part : `${part}/`);
  }
  let source = out.join('');
  // `a/**` was pushed as `a/` + `.+`, which already requires something inside; `**/x` as `(?:[^/]+/)*x`.
  if (source.endsWith('/')) source = source.slice(0, -1);
  return source;
}

function segmentSource(segment: string): string | undefined {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === '\\') {
      if (i + 1 < segment.length) out += escape(segment[++i] as string);
      continue;
    }
    if (c === '*') {
      while (segment[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = classEnd(segment, i);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, end);
      let negated = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negated = true;
        body = body.slice(1);
      }
      let cls = '';
      for (let k = 0; k < body.length; k++) {
        const d = body[k] as string;
        if (d === '\\' && k + 1 < body.length) cls += escape(body[++k] as string);
        else if (d === '-' && k > 0 && k < body.length - 1) cls += '-';
        else cls += escape(d);
      }
      // A class never matches `/` (git matches with FNM_PATHNAME).
      out += negated ? `[^/${cls}]` : `(?!/)[${cls}]`;
      try {
        new RegExp(out);
      } catch {
        return undefined;
      }
      i = end;
    } else {
      out += escape(c);
    }
  }
  return out;
}

function classEnd(text: string, start: number): number {
  let i = start + 1;
  if (text[i] === '!' || text[i] === '^') i++;
  if (text[i] === ']') i++;
  for (; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ']') return i;
  }
  return -1;
}

function escape(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

/**
 * The `.gitignore` files that apply at one point of a walk, outermost first. Immutable: entering a
 * directory with its own `.gitignore` makes a new stack that shares the outer files.
 */
export class IgnoreStack {
  static readonly empty = new IgnoreStack([]);
  readonly #files: readonly IgnoreFile[];

  private constructor(files: readonly IgnoreFile[]) {
    this.#files = files;
  }

  /** A stack with `file` as its innermost (highest-precedence) level; itself when the file has no rules. */
  with(file: IgnoreFile): IgnoreStack {
    return file.rules.length === 0 ? this : new IgnoreStack([...this.#files, file]);
  }

  get size(): number {
    return this.#files.length;
  }

  /**
   * Whether `relative` (walk-root-relative, `/`-separated, no trailing slash) is ignored. The deepest
   * file with a matching rule decides, and in it the last matching rule.
   */
  ignores(relative: string, isDirectory: boolean): boolean {
    const slash = relative.lastIndexOf('/');
    const name = slash === -1 ? relative : relative.slice(slash + 1);
    for (let f = this.#files.length - 1; f >= 0; f--) {
      const file = this.#files[f] as IgnoreFile;
      let below: string | undefined;
      if (file.base === '') below = relative;
      else if (relative.startsWith(`${file.base}/`)) below = relative.slice(file.base.length + 1);
      if (below === undefined) continue;
      for (let r = file.rules.length - 1; r >= 0; r--) {
        const rule = file.rules[r] as IgnoreRule;
        if (rule.dirOnly && !isDirectory) continue;
        if (rule.re.test(rule.anchored ? below : name)) return !rule.negate;
      }
    }
    return false;
  }
}
