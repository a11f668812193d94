// Small pieces of Python syntax for the Python SDK: string literals, comments, docstrings and
// identifiers. Everything turns arbitrary strings (tool names, descriptions from MCP servers) into
// text that cannot break the source; a test compiles the result with python3.

/** Python's hard keywords: never a method, attribute or declared name. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
  'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
  'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);

const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` works after a dot (`tools.name`) and as a keyword-free identifier. */
export function isPythonIdentifier(name: string): boolean {
  return ASCII_IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name);
}

/**
 * A double-quoted Python string literal. JSON's escapes (\", \\, \n, \uXXXX, lone surrogates) mean
 * the same in Python; U+2028/U+2029 are escaped so no editor shows a line break inside it.
 */
export function pyString(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const LINE_BREAKS = /\r\n|\r|\n|\u2028|\u2029|\u0085|\u000b|\u000c|\u001c|\u001d|\u001e/;
const CONTROL_CHARS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;

/** The text's lines without control characters, blank edges and shared indentation; [] when empty. */
function cleanLines(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const all = text.split(LINE_BREAKS).map((line) => line.replace(CONTROL_CHARS, ' ').replace(/\t/g, '    ').trimEnd());
  let start = 0;
  let end = all.length;
  while (start < end && all[start] === '') start++;
  while (end > start && all[end - 1] === '') end--;
  const lines = all.slice(start, end);
  const common = lines.filter((l) => l !== '').reduce((min, l) => Math.min(min, l.length - l.trimStart().length), Infinity);
  return lines.map((line) => line.slice(Number.isFinite(common) ? common : 0));
}

/** `# ...` lines for `text` at indentation `pad`, each ending in a newline; '' when empty. */
export function pyComment(text: unknown, pad: string): string {
  return cleanLines(text)
    .map((line) => (line === '' ? `${pad}#\n` : `${pad}# ${line}\n`))
    .join('');
}

/**
 * A docstring statement at indentation `pad`, ending in a newline; '' when the text is empty.
 * Backslashes are doubled and a quote next to another quote (or at the end) is escaped, so the
 * text can never close the triple quotes early.
 */
export function pyDocstring(text: unknown, pad: string): string {
  const lines = cleanLines(text).map((line) => line.replace(/\\/g, '\\\\').replace(/"(?="|$)/g, '\\"'));
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${pad}"""${lines[0]}"""\n`;
  return `${pad}"""${lines[0]}\n${lines
    .slice(1)
    .map((line) => (line === '' ? '' : `${pad}${line}`))
    .join('\n')}\n${pad}"""\n`;
}
