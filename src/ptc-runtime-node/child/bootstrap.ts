// The child side of the Node runtime, its lifecycle: the state of the run in progress, the frames
// from the host, the preparation before `ready`, and `ready` itself. The child's files are one
// CommonJS script fed to `node --input-type=commonjs -` on stdin (docs/control-channel.md, "The
// child's side"), so they use erasable TypeScript only, load nothing but Node built-ins (with
// require: a CommonJS script is ready sooner than an ES module, docs/control-channel.md "Hot path")
// and import only types. The child announces `ready` on fd 3, waits for one `run` frame, installs
// the program's globals, runs the program once and reports `done`; the host then kills the process
// (or, in in-memory mode, may send the next program: docs/in-memory-mode.md, "Node"). It trusts the
// host's frames; the host trusts nothing here.

import type { ChildLimits, HostFrame } from '../../ptc-runtime-process/frames.js';

const { Console } = require('node:console') as typeof import('node:console');
const { createRequire } = require('node:module') as typeof import('node:module');
const { join } = require('node:path') as typeof import('node:path');

// Taken before any program runs, which could replace process.kill or redefine process.pid.
const killProcess = process.kill.bind(process);
const ownPid = process.pid;

// Defined by the other child files of the same script (bootstrap-source.ts). This file comes after
// every one of them but in-memory.ts (functions only), so its top-level code below finds their
// declarations done.
declare const defineProperty: typeof import('./primordials.js').defineProperty;
declare const write: typeof import('./channel.js').write;
declare const consoleStream: typeof import('./output.js').consoleStream;
declare const captureRaw: typeof import('./output.js').captureRaw;
declare const resetOutput: typeof import('./output.js').resetOutput;
declare const toJsonText: typeof import('./json-text.js').toJsonText;
declare const onResult: typeof import('./bindings.js').onResult;
declare const resetCalls: typeof import('./bindings.js').resetCalls;
declare const PROGRAM_FILENAME: typeof import('./run-program.js').PROGRAM_FILENAME;
declare const compile: typeof import('./run-program.js').compile;
declare const runProgram: typeof import('./run-program.js').runProgram;
declare const onProgramError: typeof import('./run-program.js').onProgramError;
declare const createKeptRuns: typeof import('./in-memory.js').createKeptRuns;
// The control channel's socket (channel.ts; not exported there, but the files share one scope).
declare const channel: import('node:net').Socket;

/** The run frame's limits, once it came (nothing but `ready` is sent before). */
export let limits: ChildLimits = {
  maxOutputBytes: 0,
  maxFrameBytes: 0,
  maxPendingCalls: 1,
  maxPendingArgsBytes: 0,
  maxValueDepth: 0,
  maxErrorMessageBytes: 8192,
};
/** A run frame came; and the run in progress sent its `done`, after which nothing more is sent. */
export let started = false;
export let finished = false;
/** The first run frame asked to keep the process for later programs (in-memory mode). */
let keepProcess = false;

// A kept process (in-memory mode) runs a later program once the previous one is done.
const keptRuns = createKeptRuns({
  reset(): void {
    finished = false;
    resetOutput();
    resetCalls();
  },
});

export function onHostFrame(frame: HostFrame): void {
  if (frame.type === 'run') {
    if (!started) {
      started = true;
      keepProcess = (frame as { keep?: unknown }).keep === true;
      keptRuns.begin(frame);
      runProgram(frame);
    } else if (finished && keptRuns.next(frame)) {
      runProgram(frame);
    }
  } else if (frame.type === 'result') {
    onResult(frame);
  }
}

/**
 * Called right after `done` is written. A stateless run's process has nothing left to do, so it ends
 * itself with SIGKILL the moment its `done` is in the kernel's hands: its threads start dying while
 * the host is still waking up to read that frame, which the host's own kill would only start later
 * (docs/runtime-lifecycle.md, "Settling"). The host still kills the whole tree and waits for it as
 * before; this only starts the teardown sooner. A kept process (in-memory mode) stays.
 */
export function endAfterDone(): void {
  if (keepProcess) return;
  const end = () => killProcess(ownPid, 'SIGKILL');
  // A large `done` the channel could not take at once is still queued: end once it is written.
  if (channel.writableLength === 0) end();
  else channel.once('drain', end);
}

/**
 * Everything that does not depend on the run frame happens before `ready`, off the hot path: the
 * program's console, raw output capture, `require`, the error handlers, and one pass through the
 * compile-and-call path so its code is warm when the program arrives.
 */
function prepare(): void {
  const programConsole = new Console({ stdout: consoleStream('stdout'), stderr: consoleStream('stderr'), colorMode: false });
  defineProperty(globalThis, 'console', { value: programConsole, writable: true, configurable: true });
  captureRaw('stdout', process.stdout);
  captureRaw('stderr', process.stderr);
  // Built-ins and the workspace's own packages, as a CommonJS module in the workspace would see them.
  defineProperty(globalThis, 'require', {
    value: createRequire(join(process.cwd(), PROGRAM_FILENAME)),
    writable: true,
    configurable: true,
  });
  process.on('uncaughtException', onProgramError);
  process.on('unhandledRejection', onProgramError);
  const warm = compile('(async function () {\nreturn { warm: [1, "x", null] };\n})');
  void (warm as () => Promise<unknown>)().then((value) => toJsonText(value));
}

prepare();
write('{"type":"ready"}');
