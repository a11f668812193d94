// In-memory mode for Node programs (docs/in-memory-mode.md, "Node"): the stripped program is
// rewritten so the names it declares at its top level outlive it, as properties of the kept process's
// global object, where the next program's free references find them. Parsed with acorn (a real
// ECMAScript parser, the one Node's own REPL uses for its top-level-await rewrite), edited in place so
// every line and column of the program stays the model's own, and compiled once here as a check.

import { parse, type Node, type Pattern, type Statement } from 'acorn';
import { Script } from 'node:vm';
import { PROGRAM_FILENAME, PROGRAM_LINE_OFFSET } from './strip.js';

/** The head and tail stripProgram wraps a body in (strip.ts). */
const PLAIN_HEAD = '(async function () {';
const PLAIN_TAIL = '\n})';
/**
 * The kept-process wrapper: a function of the global object and the run's bindings that returns the
 * body. The global comes in as a parameter, so a program that declares its own `globalThis` cannot
 * hide it; the bindings (`tools`, their error classes) are parameters too, so the body's free
 * references find this run's, never a global an earlier program replaced (docs/in-memory-mode.md,
 * "What a later run can trust"). Still one line before the body, so positions do not move.
 */
const keptHead = (given: readonly string[]) => `((${GLOBAL}, { ${given.join(', ')} }) => async function () {`;
const KEPT_TAIL = '\n})';
const GLOBAL = 'ptc$global';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Names a program may declare for itself but that cannot become (or already are fixed) global properties. */
const LOCAL_ONLY: ReadonlySet<string> = new Set(['undefined', 'NaN', 'Infinity', 'globalThis', 'eval', 'arguments', GLOBAL]);

interface Edit {
  readonly at: number;
  readonly remove: number;
  readonly insert: string;
}

export type KeptProgram = { readonly ok: true; readonly code: string } | { readonly ok: false; readonly message: string };

/**
 * Rewrites a stripped wrapper (stripProgram's `code`) for a kept process:
 * - `let` and `var` declarations become assignments to global properties (the keyword becomes `;`
 *   and spaces; a declarator without a value gets `= void 0`; a destructuring target is put in
 *   parentheses), so later statements and later programs see one binding;
 * - `const` and `class` declarations stay as they are (a `const` stays constant within its program)
 *   and are copied to global properties right after the statement;
 * - function declarations are copied at the start of the body (they are hoisted).
 * Names are made global properties before the body runs, so assignments work in strict mode too.
 */
export function keepTopLevelNames(stripped: string, bindingNames: readonly string[] = []): KeptProgram {
  // Names the child passes in (child/run-program.ts); a program's own top-level declaration of one
  // stays local to that program, like the names in LOCAL_ONLY.
  const given = [...new Set(bindingNames.filter((name) => IDENTIFIER.test(name) && name !== GLOBAL))];
  const localOnly = new Set([...LOCAL_ONLY, ...given]);
  if (!stripped.startsWith(PLAIN_HEAD) || !stripped.endsWith(PLAIN_TAIL)) {
    return { ok: false, message: 'in-memory mode could not read the stripped program (unexpected wrapper)' };
  }
  let statements: Statement[];
  let bodyStart: number;
  try {
    const program = parse(stripped, { ecmaVersion: 'latest', sourceType: 'script' });
    const wrapper = program.body[0];
    const fn = wrapper?.type === 'ExpressionStatement' ? wrapper.expression : undefined;
    if (fn?.type !== 'FunctionExpression') throw new Error('the wrapper is not a function expression');
    statements = fn.body.body;
    bodyStart = fn.body.start + 1;
  } catch (error) {
    return { ok: false, message: `in-memory mode could not parse the program to keep its names: ${describe(error)}` };
  }

  const edits: Edit[] = [];
  const assigned: string[] = [];
  const hoisted: string[] = [];
  let prologueAt = bodyStart;
  let inPrologue = true;
  for (const statement of statements) {
    if (inPrologue && statement.type === 'ExpressionStatement' && typeof statement.directive === 'string') {
      prologueAt = statement.end;
      continue;
    }
    inPrologue = false;
    if (statement.type === 'VariableDeclaration') {
      const names = statement.declarations.flatMap((declarator) => boundNames(declarator.id));
      if (names.some((name) => localOnly.has(name))) continue;
      if (statement.kind === 'const') {
        edits.push({ at: statement.end, remove: 0, insert: `;${copies(names)}` });
      } else if (statement.kind === 'let' || statement.kind === 'var') {
        edits.push({ at: statement.start, remove: statement.kind.length, insert: `;${' '.repeat(statement.kind.length - 1)}` });
        for (const declarator of statement.declarations) {
          if (declarator.id.type === 'Identifier') {
            if (declarator.init == null) edits.push({ at: declarator.id.end, remove: 0, insert: ' = void 0' });
          } else {
            edits.push({ at: declarator.id.start, remove: 0, insert: '(' }, { at: declarator.end, remove: 0, insert: ')' });
          }
        }
        assigned.push(...names);
      }
      // `using` declarations are disposed when the program ends: they stay local.
    } else if (statement.type === 'FunctionDeclaration' && !localOnly.has(statement.id.name)) {
      hoisted.push(statement.id.name);
    } else if (statement.type === 'ClassDeclaration' && !localOnly.has(statement.id.name)) {
      edits.push({ at: statement.end, remove: 0, insert: `;${copies([statement.id.name])}` });
    }
  }
  const declared = [...new Set(assigned)].map((name) => `${JSON.stringify(name)} in ${GLOBAL} || (${GLOBAL}[${JSON.stringify(name)}] = undefined);`);
  if (declared.length > 0 || hoisted.length > 0) edits.push({ at: prologueAt, remove: 0, insert: `;${declared.join(' ')}${copies(hoisted)}` });

  let code = stripped;
  for (const edit of edits.sort((a, b) => b.at - a.at)) code = code.slice(0, edit.at) + edit.insert + code.slice(edit.at + edit.remove);
  code = keptHead(given) + code.slice(PLAIN_HEAD.length, code.length - PLAIN_TAIL.length) + KEPT_TAIL;
  try {
    new Script(code, { filename: PROGRAM_FILENAME, lineOffset: PROGRAM_LINE_OFFSET });
  } catch (error) {
    return { ok: false, message: `in-memory mode could not keep the top-level names of this program: ${describe(error)}` };
  }
  return { ok: true, code };
}

/** `ptc$global["a"] = a;` for each name. */
function copies(names: readonly string[]): string {
  return names.map((name) => `${GLOBAL}[${JSON.stringify(name)}] = ${name};`).join(' ');
}

/** The identifiers a declaration target binds (`a`, `{ b, c: [d] }`, `...rest`, `e = 1`). */
function boundNames(pattern: Pattern | Node): string[] {
  const p = pattern as Pattern;
  switch (p.type) {
    case 'Identifier':
      return [p.name];
    case 'ObjectPattern':
      return p.properties.flatMap((property) => boundNames(property.type === 'RestElement' ? property.argument : property.value));
    case 'ArrayPattern':
      return p.elements.flatMap((element) => (element === null ? [] : boundNames(element)));
    case 'RestElement':
      return boundNames(p.argument);
    case 'AssignmentPattern':
      return boundNames(p.left);
    default:
      return [];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
