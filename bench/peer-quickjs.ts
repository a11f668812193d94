// The QuickJS peer of the bench (docs/benchmarks.md), run the way @ai-sdk/code-mode runs a program:
// one Worker thread kept idle between runs; for each run it instantiates a fresh asyncify QuickJS
// WASM module (quickjs-emscripten's RELEASE_ASYNC variant) and a context with a memory limit, a
// stack limit and a deadline interrupt handler, installs a host function that returns a QuickJS
// promise per tool call (the request travels to the host thread by postMessage as a tool name and
// JSON text, the reply comes back the same way), evaluates the program wrapped in an async
// function, drives the context's job queue until the program's promise settles, reads the value as
// JSON and disposes the context. Isolation is QuickJS's own heap inside WASM, in the host process.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Peer } from './peers.js';

const MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
const MAX_STACK_BYTES = 1024 * 1024;
const DEADLINE_MS = 120_000;

/** Runs in the Worker (plain JavaScript: the bench's TypeScript loader is not loaded there). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSAsyncWASMModule, RELEASE_ASYNC } = require(workerData.quickjsPath);
const pending = new Map();
let nextId = 0;

parentPort.on('message', (message) => {
  if (message.type === 'reply') {
    const call = pending.get(message.id);
    pending.delete(message.id);
    const text = call.context.newString(message.valueJson);
    call.deferred.resolve(text);
    text.dispose();
    return;
  }
  run(message).then(
    (valueJson) => parentPort.postMessage({ type: 'result', valueJson }),
    (error) => parentPort.postMessage({ type: 'result', error: String(error && error.stack || error) }),
  );
});

function drain(context) {
  while (context.runtime.hasPendingJob()) {
    const jobs = context.runtime.executePendingJobs();
    if (jobs.error) {
      const error = jobs.error.context ? jobs.error.context.dump(jobs.error) : context.dump(jobs.error);
      jobs.error.dispose();
      throw new Error(JSON.stringify(error));
    }
  }
}

async function run({ program, memoryLimitBytes, maxStackBytes, deadlineMs }) {
  const module = await newQuickJSAsyncWASMModule(RELEASE_ASYNC);
  const context = module.newContext();
  const deadline = Date.now() + deadlineMs;
  context.runtime.setMemoryLimit(memoryLimitBytes);
  context.runtime.setMaxStackSize(maxStackBytes);
  context.runtime.setInterruptHandler(() => Date.now() > deadline);
  try {
    const invoke = context.newFunction('__invoke', (nameHandle, argsHandle) => {
      const id = nextId++;
      const deferred = context.newPromise();
      pending.set(id, { context, deferred });
      deferred.settled.then(() => {
        context.runtime.executePendingJobs();
        deferred.dispose();
      });
      parentPort.postMessage({ type: 'call', id, name: context.getString(nameHandle), argsJson: context.getString(argsHandle) });
      return deferred.handle;
    });
    context.setProp(context.global, '__invoke', invoke);
    invoke.dispose();
    const source =
      'globalThis.tools = new Proxy({}, { get: (_, name) => async (args) => JSON.parse(await __invoke(String(name), JSON.stringify(args))) });\\n' +
      'globalThis.__result = (async () => {\\n' + program + '\\n})().then((value) => JSON.stringify(value));';
    const evaluated = await context.evalCodeAsync(source, 'program.js');
    if (evaluated.error) {
      const error = context.dump(evaluated.error);
      evaluated.error.dispose();
      throw new Error(JSON.stringify(error));
    }
    evaluated.value.dispose();
    const promise = context.getProp(context.global, '__result');
    const settled = context.resolvePromise(promise);
    promise.dispose();
    for (;;) {
      drain(context);
      const next = await Promise.race([settled.then((result) => ({ result })), new Promise((resolve) => setTimeout(() => resolve(undefined), 0))]);
      if (next === undefined) continue;
      drain(context);
      if (next.result.error) {
        const error = context.dump(next.result.error);
        next.result.error.dispose();
        throw new Error(JSON.stringify(error));
      }
      const valueJson = context.getString(next.result.value);
      next.result.value.dispose();
      return valueJson;
    }
  } finally {
    pending.clear();
    context.dispose();
  }
}
`;

interface WorkerMessage {
  readonly type: 'call' | 'result';
  readonly id?: number;
  readonly name?: string;
  readonly argsJson?: string;
  readonly valueJson?: string;
  readonly error?: string;
}

export function quickJsPeer(): Peer {
  const quickjsPath = createRequire(import.meta.url).resolve('quickjs-emscripten');
  let idle: Worker | undefined;

  const run = (program: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      // One worker, reused while it stays healthy (the library keeps idle workers the same way).
      const worker = idle ?? new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { quickjsPath } });
      idle = undefined;
      const onError = (error: Error) => {
        worker.off('message', onMessage);
        void worker.terminate();
        reject(error);
      };
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'call') {
          // The binding: an echo, bridged as JSON text like a host tool.
          const args: unknown = JSON.parse(message.argsJson ?? 'null');
          worker.postMessage({ type: 'reply', id: message.id, valueJson: JSON.stringify(args) });
          return;
        }
        worker.off('message', onMessage);
        worker.off('error', onError);
        idle = worker;
        if (message.error !== undefined) reject(new Error(`QuickJS program failed: ${message.error}`));
        else resolve(message.valueJson === undefined ? undefined : JSON.parse(message.valueJson));
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.postMessage({ type: 'run', program, memoryLimitBytes: MEMORY_LIMIT_BYTES, maxStackBytes: MAX_STACK_BYTES, deadlineMs: DEADLINE_MS });
    });

  return {
    name: 'QuickJS (quickjs-emscripten, as @ai-sdk/code-mode)',
    isolating: true,
    run,
    close: async () => {
      await idle?.terminate();
      idle = undefined;
    },
  };
}
