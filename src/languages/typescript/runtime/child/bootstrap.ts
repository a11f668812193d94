// The child side of the Node runtime, its lifecycle: the state of the run in progress, the frames
// from the host, the preparation before `ready`, and `ready` itself. The child's files are one
// CommonJS script fed to `node --input-type=commonjs -` on stdin (docs/control-channel.md, "The
// child's side"), so they use erasable TypeScript only, load nothing but Node built-ins (with
// require: a CommonJS script is ready sooner than an ES module, docs/control-channel.md "Hot path")
// and import only types. The child announces `ready` on fd 3, waits for one `run` frame, installs
// the program's globals, runs the program once and reports `done`; the host then kills the process
// (or, in in-memory mode, may send the next program: docs/in-memory-mode.md, "Node"). It trusts the
// host's frames; the host trusts nothing here.

import type { ChildLimits, HostFrame } from '../../../../ptc-runtime-process/frames.js';

const { Console } = require('node:console') as typeof import('node:console');
const { createRequire } = require('node:module') as typeof import('node:module');
const { join } = require('node:path') as typeof import('node:path');

// Defined by the other child files of the same script (bootstrap-source.ts). This file comes after
// every one of them but in-memory.ts (functions only), so its top-level code below finds their
// declarations done.
declare const defineProperty: typeof import('./primordials.js').defineProperty;
declare const write: typeof import('./channel.js').write;
declare const captureWrites: typeof import('./channel.js').captureWrites;
declare const releaseWrites: typeof import('./channel.js').releaseWrites;
declare const onChannelRead: typeof import('./channel.js').onChannelRead;
declare const exitProcess: typeof import('./primordials.js').exitProcess;
declare const consoleStream: typeof import('./output.js').consoleStream;
declare const captureRaw: typeof import('./output.js').captureRaw;
declare const resetOutput: typeof import('./output.js').resetOutput;
declare const onResult: typeof import('./bindings.js').onResult;
declare const resetCalls: typeof import('./bindings.js').resetCalls;
declare const restartCallIds: typeof import('./bindings.js').restartCallIds;
declare const PROGRAM_FILENAME: typeof import('./run-program.js').PROGRAM_FILENAME;
declare const runProgram: typeof import('./run-program.js').runProgram;
declare const onProgramError: typeof import('./run-program.js').onProgramError;
declare const createKeptRuns: typeof import('./in-memory.js').createKeptRuns;

/** Before any run frame (and again after the warm-up). */
const INITIAL_LIMITS: ChildLimits = {
  maxOutputBytes: 0,
  maxFrameBytes: 0,
  maxPendingCalls: 1,
  maxPendingArgsBytes: 0,
  maxValueDepth: 0,
  maxErrorMessageBytes: 8192,
};
/** The run frame's limits, once it came (nothing but `ready` is sent before). */
export let limits: ChildLimits = INITIAL_LIMITS;
/** A run frame came; and the run in progress sent its `done`, after which nothing more is sent. */
export let started = false;
export let finished = false;

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
 * Everything that does not depend on the run frame happens before `ready`, off the hot path: the
 * program's console, raw output capture, `require` and the error handlers.
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
}

/**
 * One run of a small program of our own through the whole run path before `ready` (a child started
 * for the pool, with the WARM_UP_ARG argument; bootstrap-source.ts): the frames are
 * read through onChannelRead and everything written is kept (captureWrites), so the host sees none of
 * it. The first run in a process costs 1.7-2.1 ms of JavaScript that is almost all first execution
 * (lazy compilation, cold inline caches; docs/runtime-lifecycle.md, "Measured"); this moves it off
 * the program's time. Afterwards every bit of run state is as it was: no run started, call ids from
 * 1, no output counted, the warm-up's global gone. Any failure ends the process before `ready`.
 */
async function warmUp(): Promise<void> {
  const global = '__ptcWarmUp';
  const frames = captureWrites();
  try {
    const feed = (frame: object) => {
      const bytes = Buffer.from(JSON.stringify(frame) + '\n', 'utf8');
      onChannelRead(bytes.length, bytes);
    };
    feed({
      type: 'run',
      code: `(async function () {\nconst v = await ${global}.echo({ a: [1, "x", null], b: true });\nconsole.log("w", v.b);\nreturn { v, n: 1 };\n})`,
      bindings: [{ global, members: ['echo'], errorClass: null }],
      limits: { ...INITIAL_LIMITS, maxOutputBytes: 4096, maxFrameBytes: 4096, maxPendingCalls: 8, maxPendingArgsBytes: 4096, maxValueDepth: 8 },
    });
    feed({ type: 'result', id: 1, ok: true, value: { a: [1, 'x', null], b: true } });
    // The program's continuation and its `done` are microtasks: done before the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    if (!frames.some((text) => text.startsWith('{"type":"done","ok":true'))) {
      throw new Error(`no done frame (wrote: ${frames.join('').slice(0, 300)})`);
    }
  } finally {
    started = false;
    finished = false;
    limits = INITIAL_LIMITS;
    resetOutput();
    resetCalls();
    restartCallIds();
    delete (globalThis as Record<string, unknown>)[global];
    releaseWrites();
  }
}

prepare();
// Only a child started for the pool warms up: one a run is waiting for would only make it wait longer.
(process.argv[2] === 'warm-up' ? warmUp() : Promise.resolve()).then(
  () => write('{"type":"ready"}'),
  (error: unknown) => {
    require('node:fs').writeSync(2, `ptc child: the bootstrap's warm-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    exitProcess(70);
  },
);
