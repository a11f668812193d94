// Type stripping on the host: the program body becomes JavaScript with every position kept, wrapped
// as an async function expression, and is compiled once here (never run) so syntax errors surface as
// STRIP_FAILED with the model's line:column before any child is involved. amaro sits behind
// stripTypes() alone, so it can be swapped for another eraser without touching the rest.

import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { Worker } from 'node:worker_threads';

/** The file name program frames carry in stack traces and messages. */
export const PROGRAM_FILENAME = 'program.ts';

/**
 * The wrapper puts the body on its own lines: program line N is wrapper line N + 1 and columns are
 * unchanged, so the child compiles with `lineOffset: PROGRAM_LINE_OFFSET`.
 */
const WRAPPER_HEAD = '(async function () {\n';
const WRAPPER_TAIL = '\n})';
export const PROGRAM_LINE_OFFSET = -1;

/** The wrapper around `program`; also the key under which a strip made ahead is found. */
function wrap(program: string): string {
  return WRAPPER_HEAD + program + WRAPPER_TAIL;
}

const requireHere = createRequire(import.meta.url);

export type StripResult =
  | { readonly ok: true; /** The stripped wrapper: an expression evaluating to the async function. */ readonly code: string }
  | { readonly ok: false; readonly message: string };

/** Strips `program`, checks the result compiles, and returns the wrapper source or a model-actionable message. */
export function stripProgram(program: string): StripResult {
  const wrapped = wrap(program);
  let code: string;
  try {
    code = stripTypes(wrapped);
  } catch (error) {
    return { ok: false, message: describeStripError(error, program) };
  }
  try {
    // Compiling checks what the eraser lets through (duplicate declarations, `import` statements...).
    new Script(code, { filename: PROGRAM_FILENAME, lineOffset: PROGRAM_LINE_OFFSET });
  } catch (error) {
    return { ok: false, message: describeCompileError(error, program) };
  }
  return { ok: true, code };
}

interface AmaroModule {
  transformSync(source: string, options: { mode: 'strip-only' }): { code: string };
}

let amaro: AmaroModule | undefined;

/** What stripProgramAhead() made on its worker, used once by the stripTypes() call for the same source. */
let ahead: { readonly source: string; readonly code: string } | undefined;
let aheadUsed = 0;

/** How many strips were taken from stripProgramAhead() instead of made on this thread (tests, diagnostics). */
export function stripsTakenAhead(): number {
  return aheadUsed;
}

/**
 * The one call into the type eraser (amaro 1.2.1, strip-only: types become whitespace, positions
 * stay). Throws amaro's error object ({ code, message, startLine, startColumn, ... }) on failure.
 */
export function stripTypes(source: string): string {
  if (ahead !== undefined && ahead.source === source) {
    const { code } = ahead;
    ahead = undefined;
    aheadUsed++;
    return code;
  }
  amaro ??= requireHere('amaro') as AmaroModule;
  return amaro.transformSync(source, { mode: 'strip-only' }).code;
}

/** The worker of stripProgramAhead(): loads the eraser, strips one source, posts the code (null on failure). */
const AHEAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
let code = null;
try {
  code = require(workerData.eraser).transformSync(workerData.source, { mode: 'strip-only' }).code;
} catch {
  // The caller strips again itself and reports the error as usual.
}
parentPort.postMessage(code);
`;

/**
 * For a one-shot caller (`ptc exec`) that knows its program before it has built a harness: strips
 * it on a worker thread, where loading the eraser (a 2.7 MB WebAssembly module compiled at load,
 * about 250 ms here) overlaps the caller's own start-up instead of following it. Resolves once the
 * result is in place for the stripProgram(program) that comes next, or once the worker failed; then
 * that call strips on this thread as before. Never rejects; resolves with the stripped wrapper (what
 * a caller may keep for useStripMadeEarlier) or undefined. docs/runtime-lifecycle.md, "One-shot callers".
 */
export function stripProgramAhead(program: string): Promise<string | undefined> {
  const source = wrap(program);
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      const eraser = requireHere.resolve('amaro');
      // No flags of this process (`--input-type=module` would make the script a module without require).
      worker = new Worker(AHEAD_WORKER, { eval: true, execArgv: [], workerData: { eraser, source } });
    } catch {
      resolve(undefined);
      return;
    }
    // Not unref'd: a caller awaiting the result may have nothing else keeping the process alive.
    const finish = (code: unknown) => {
      if (typeof code === 'string') ahead = { source, code };
      void worker.terminate();
      resolve(typeof code === 'string' ? code : undefined);
    };
    worker.once('message', finish);
    worker.once('error', () => finish(undefined));
    worker.once('exit', () => finish(undefined));
  });
}

/**
 * Puts a strip of `program` that stripProgramAhead() made in an earlier process (the CLI keeps them,
 * src/cli/strip-cache.ts) in place for the next stripProgram(program), which still compiles it.
 */
export function useStripMadeEarlier(program: string, code: string): void {
  ahead = { source: wrap(program), code };
}

interface EraserError {
  readonly code: string;
  readonly message: string;
  readonly startLine: number;
  readonly startColumn: number;
}

function isEraserError(error: unknown): error is EraserError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Record<string, unknown>;
  return (
    typeof e['code'] === 'string' &&
    typeof e['message'] === 'string' &&
    typeof e['startLine'] === 'number' &&
    typeof e['startColumn'] === 'number'
  );
}

/** Fixes for syntax that cannot be erased, keyed by a fragment of the eraser's message. */
const FIXES: readonly { readonly match: RegExp; readonly fix: string }[] = [
  { match: /\benum\b/i, fix: 'use a const object instead of enum, e.g. `const Color = { Red: "red" } as const`' },
  {
    match: /\bnamespace\b|\bmodule declaration\b/i,
    fix: 'use a plain object or module-level functions instead of a namespace',
  },
  {
    match: /parameter propert/i,
    fix: 'declare the field and assign it in the constructor instead of a parameter property (`x: number; constructor(x: number) { this.x = x; }`)',
  },
  { match: /angle-bracket|<T>expr/i, fix: 'use `x as T` instead of `<T>x`' },
  {
    match: /\bimport\b|\bexport\b/i,
    fix: 'the program is the body of an async function, not a module: use `await import("name")` or `require("name")` instead of `import`, and `return` the result instead of `export`',
  },
];

function fixFor(message: string): string | undefined {
  return FIXES.find((entry) => entry.match.test(message))?.fix;
}

function describeStripError(error: unknown, program: string): string {
  if (!isEraserError(error)) {
    return `${PROGRAM_FILENAME}: TypeScript could not be stripped: ${error instanceof Error ? error.message : String(error)}`;
  }
  const at = programLocation(program, error.startLine + PROGRAM_LINE_OFFSET, error.startColumn + 1);
  const message = error.message.replace(/[\s.]+$/, '');
  const fix = fixFor(message);
  if (error.code === 'UnsupportedSyntax') {
    return `${at}: TypeScript syntax that cannot be erased: ${message}; fix: ${fix ?? 'rewrite it with erasable syntax'}. ` +
      'Types are stripped, not compiled: annotations, interfaces, type aliases and `as` casts are fine.';
  }
  return `${at}: invalid syntax: ${message}${fix === undefined ? '' : `; fix: ${fix}`}.`;
}

function describeCompileError(error: unknown, program: string): string {
  if (!(error instanceof Error)) return `${PROGRAM_FILENAME}: invalid syntax: ${String(error)}`;
  const location = compileErrorLocation(error);
  const at = location === undefined ? PROGRAM_FILENAME : programLocation(program, location.line, location.column);
  const message = error.message.replace(/[\s.]+$/, '');
  const fix = fixFor(message);
  return `${at}: invalid syntax: ${error.name}: ${message}${fix === undefined ? '' : `; fix: ${fix}`}.`;
}

/** `program.ts:L:C` (1-based); a position in the wrapper's tail (unclosed braces) is the program's end. */
function programLocation(program: string, line: number, column: number): string {
  const lines = program.split('\n');
  if (line > lines.length) {
    return `${PROGRAM_FILENAME}:${lines.length}:${(lines[lines.length - 1] ?? '').length + 1} (end of program)`;
  }
  return `${PROGRAM_FILENAME}:${Math.max(1, line)}:${Math.max(1, column)}`;
}

/**
 * V8 puts a syntax error's position in the stack's first lines: `program.ts:LINE`, the source line,
 * then a caret line under the offending token, whose offset is the column.
 */
function compileErrorLocation(error: Error): { line: number; column: number } | undefined {
  const lines = (error.stack ?? '').split('\n');
  const head = new RegExp(`^${PROGRAM_FILENAME.replace('.', '\\.')}:(\\d+)$`).exec(lines[0] ?? '');
  if (head === null) return undefined;
  const line = Math.max(1, Number(head[1]));
  const caret = (lines[2] ?? '').indexOf('^');
  return { line, column: caret >= 0 ? caret + 1 : 1 };
}
