// Names a runtime turns into globals of the program: portable identifiers that every runtime can
// declare as-is, never a reserved word. Member names of a binding are not restricted (see types.ts).

/** ASCII identifier syntax shared by JavaScript and TypeScript (and, minus `$`, most languages). */
export const PORTABLE_IDENTIFIER_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Words a program global cannot be named: ECMAScript reserved words (also those reserved only in
 * strict mode or in modules), literals, and the global values that cannot be redefined.
 */
export const RESERVED_GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete',
  'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import',
  'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try',
  'typeof', 'var', 'void', 'while', 'with', 'yield', 'let', 'static', 'implements', 'interface',
  'package', 'private', 'protected', 'public', 'arguments', 'eval', 'undefined', 'NaN', 'Infinity',
  'globalThis',
]);

/** Why `name` cannot be a program global, or undefined when it can. */
export function globalNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `must be a string, got ${describe(name)}`;
  if (!PORTABLE_IDENTIFIER_PATTERN.test(name)) {
    return `"${name}" is not a portable identifier (letters, digits, _ and $, not starting with a digit)`;
  }
  if (RESERVED_GLOBAL_NAMES.has(name)) return `"${name}" is a reserved word`;
  return undefined;
}

export function isPortableIdentifier(name: unknown): name is string {
  return globalNameProblem(name) === undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
