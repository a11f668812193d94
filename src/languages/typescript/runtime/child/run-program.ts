// Running the program in the child: compiled as `program.ts` so its errors carry the model's own
// line:column, called once, and its outcome (value, exception or a broken limit) reported as the one
// `done` frame (docs/control-channel.md, "Frames").

import type { ChildErrorCode, RunFrame } from '../../../../ptc-runtime-process/frames.js';

const vm = require('node:vm') as typeof import('node:vm');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const stringify: typeof import('./primordials.js').stringify;
declare const promiseResolve: typeof import('./primordials.js').promiseResolve;
declare const promiseThen: typeof import('./primordials.js').promiseThen;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const exitProcess: typeof import('./primordials.js').exitProcess;
declare const write: typeof import('./channel.js').write;
declare let outputBytes: typeof import('./output.js').outputBytes;
declare const flushRaw: typeof import('./output.js').flushRaw;
declare const toJsonText: typeof import('./json-text.js').toJsonText;
declare const describeThrown: typeof import('./json-text.js').describeThrown;
declare const thrownLocation: typeof import('./json-text.js').thrownLocation;
declare const capMessage: typeof import('./json-text.js').capMessage;
declare const installBindings: typeof import('./bindings.js').installBindings;
declare const inEarlierRun: typeof import('./bindings.js').inEarlierRun;
declare const runStorage: typeof import('./primordials.js').runStorage;
declare const takeChannelKey: typeof import('./bindings.js').takeChannelKey;
declare let keyField: typeof import('./bindings.js').keyField;
declare const wipeReads: typeof import('./channel.js').wipeReads;
declare let limits: typeof import('./bootstrap.js').limits;
declare let started: typeof import('./bootstrap.js').started;
declare let finished: typeof import('./bootstrap.js').finished;

// Lets the program use `await import(...)`. Read as the script loads, before prepare() captures the
// output: the access emits an ExperimentalWarning on Node 20, which must reach the real stderr rather
// than the program's captured output. Missing before 20.12.
const dynamicImport = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: unknown } }).constants
  ?.USE_MAIN_CONTEXT_DEFAULT_LOADER as import('node:vm').ScriptOptions['importModuleDynamically'];

// Taken as the script loads: a kept program could replace `vm.Script` on the shared module object or
// its prototype's runInThisContext, and so run its own code in place of a later program.
const VmScript = vm.Script;
const runInThisContext = Function.prototype.call.bind(vm.Script.prototype.runInThisContext) as (script: import('node:vm').Script) => unknown;

export const PROGRAM_FILENAME = 'program.ts';
const PROGRAM_LINE_OFFSET = -1;

export function finishWithError(code: ChildErrorCode, message: string): void {
  if (finished) return;
  finished = true;
  write(`{"type":"done",${keyField}"ok":false,"error":{"code":"${code}","message":${stringify(capMessage(message))}}}`);
}

function onProgramValue(value: unknown): void {
  if (finished) return;
  flushRaw();
  if (finished) return;
  if (value === undefined) {
    finished = true;
    write(`{"type":"done",${keyField}"ok":true}`);
    return;
  }
  const json = toJsonText(value);
  if (typeof json !== 'string') {
    const problem = json;
    finishWithError(
      'INVALID_OUTPUT',
      `the returned value is not JSON: ${problem.path === '' ? 'the value itself' : `at ${problem.path}`}: ${problem.reason}. ` +
        'Return plain objects, arrays, strings, numbers, booleans or null (convert Dates, Maps and class instances first).',
    );
    return;
  }
  const bytes = byteLength(json, 'utf8');
  const line = `{"type":"done",${keyField}"ok":true,"value":${json}}`;
  if (outputBytes + bytes > limits.maxOutputBytes || byteLength(line, 'utf8') > limits.maxFrameBytes) {
    finishWithError(
      'OUTPUT_LIMIT',
      `the returned value is ${bytes} bytes and the logs ${outputBytes} bytes: more than the output limit of ` +
        `${limits.maxOutputBytes} bytes; return less (a summary, a count, the first items)`,
    );
    return;
  }
  finished = true;
  write(line);
}

export function onProgramError(error: unknown): void {
  // Before the program arrives a throw is the bootstrap's own failure: exit so the host sees it.
  if (!started) exitProcess(70);
  if (finished) return;
  // Thrown (or a rejection left unhandled, such as a refused call) by code an earlier program left
  // running: Node reports both in the context of the code that failed. Not the running program's
  // failure (docs/in-memory-mode.md, "What a later run can trust").
  if (inEarlierRun()) return;
  flushRaw();
  if (finished) return;
  const location = thrownLocation(error);
  finishWithError('EXCEPTION', `${describeThrown(error)}${location === undefined ? '' : ` (${location})`}`);
}

export function compile(code: string): unknown {
  const script = new VmScript(code, {
    filename: PROGRAM_FILENAME,
    lineOffset: PROGRAM_LINE_OFFSET,
    ...(dynamicImport === undefined ? {} : { importModuleDynamically: dynamicImport }),
  });
  return runInThisContext(script);
}

/**
 * Runs the frame's program. A kept run (in-memory mode) gets a fresh token: its body runs inside
 * runStorage with it, so every callback it starts carries it, and the bindings accept calls only from
 * that context. Its code is the kept wrapper (top-level-names.ts), which takes the global object and
 * the run's bindings as parameters and returns the body.
 */
export function runProgram(frame: RunFrame): void {
  limits = frame.limits;
  if (takeChannelKey(frame.key)) wipeReads();
  const run = frame.keep === true ? {} : undefined;
  const given = installBindings(frame.bindings, run);
  let body: unknown;
  try {
    body = compile(frame.code);
    if (run !== undefined && typeof body === 'function') body = (body as (global: unknown, bindings: unknown) => unknown)(globalThis, given);
  } catch (error) {
    onProgramError(error);
    return;
  }
  if (typeof body !== 'function') {
    finishWithError('EXCEPTION', 'the program closed its own function body early (unbalanced braces)');
    return;
  }
  let completion: unknown;
  try {
    completion = run === undefined ? (body as () => unknown)() : runStorage.run(run, body as () => unknown);
  } catch (error) {
    onProgramError(error);
    return;
  }
  // The captured originals: a program that replaced Promise.resolve or then still gets its outcome reported.
  promiseThen(promiseResolve(completion), onProgramValue, onProgramError);
}
