// Small pieces of TypeScript syntax shared by the codegen: string literals, property keys, JSDoc,
// identifiers. Everything here turns arbitrary strings into text that cannot break the source.

const ASCII_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Names a type alias cannot take: reserved words (strict mode included) and the predefined types.
 * `Record` is listed because generated declarations use it unqualified.
 */
const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in',
  'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try',
  'typeof', 'var', 'void', 'while', 'with', 'implements', 'interface', 'let', 'package', 'private',
  'protected', 'public', 'static', 'yield', 'await', 'any', 'unknown', 'never', 'string', 'number',
  'boolean', 'symbol', 'object', 'bigint', 'undefined', 'Record',
]);

/** Compares by UTF-16 code units, never by locale, so output does not depend on the machine. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A double-quoted TypeScript string literal. JSON escaping covers quotes, backslashes, control
 * characters and lone surrogates; U+2028/U+2029 are escaped too so no line ever breaks inside it.
 */
export function quoteString(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A property key: bare when it is a plain ASCII identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return ASCII_IDENTIFIER.test(name) ? name : quoteString(name);
}

/** True when `name` can be declared as a type alias in any scope (ASCII identifiers only). */
export function isDeclarableTypeName(name: string): boolean {
  return ASCII_IDENTIFIER.test(name) && !RESERVED_TYPE_NAMES.has(name);
}

/** Turns any string into a declarable identifier fragment; `fallback` when nothing usable is left. */
export function identifierFrom(text: string, fallback: string): string {
  let id = text.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/[A-Za-z0-9]/.test(id)) id = fallback;
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED_TYPE_NAMES.has(id)) id = `${id}_`;
  return id;
}

/** `base` itself when free, else `base2`, `base3`, ...; the chosen name is added to `used`. */
export function allocateName(base: string, used: Set<string>): string {
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}${n}`;
  used.add(name);
  return name;
}

/** Indents every line but the first, for placing a multi-line type after a prefix on one line. */
export function indentContinuation(text: string, pad: string): string {
  return text.includes('\n') ? text.split('\n').join(`\n${pad}`) : text;
}

const LINE_BREAKS = /\r\n|\r|\n|\u2028|\u2029/;
// C0 controls (but tab), DEL and C1 controls: invisible, and some tools treat them as line breaks.
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * A JSDoc block for `text` at indentation `pad`, ending in a newline, or '' when the text is empty.
 * `*\/` is broken up so the comment cannot close early; every kind of line break starts a new line.
 */
export function jsDoc(text: unknown, pad: string): string {
  if (typeof text !== 'string') return '';
  const all = text.split(LINE_BREAKS);
  let start = 0;
  let end = all.length;
  const clean = (line: string) => line.replace(CONTROL_CHARS, ' ').replace(/\*\//g, '*\\/').trimEnd();
  while (start < end && clean(all[start]!) === '') start++;
  while (end > start && clean(all[end - 1]!) === '') end--;
  if (start === end) return '';
  const lines = all.slice(start, end).map(clean);
  // Drop the indentation all lines share (descriptions often come from indented template strings).
  const common = lines
    .filter((l) => l !== '')
    .reduce((min, l) => Math.min(min, l.length - l.trimStart().length), Infinity);
  for (let i = 0; i < lines.length; i++) lines[i] = lines[i]!.slice(common);
  if (lines.length === 1) return `${pad}/** ${lines[0]} */\n`;
  const body = lines.map((line) => (line === '' ? `${pad} *` : `${pad} * ${line}`)).join('\n');
  return `${pad}/**\n${body}\n${pad} */\n`;
}
