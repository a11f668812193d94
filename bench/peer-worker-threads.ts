// The worker_threads peer of the bench (docs/benchmarks.md): every run is a fresh Worker in the host
// process, its binding a MessagePort. No isolation from the host's process (same memory limits,
// same file system, same network): the floor of what an in-process JavaScript runtime costs.

import { MessageChannel, Worker } from 'node:worker_threads';
import type { Peer } from './peers.js';

/** Runs in the Worker (plain JavaScript: the bench's TypeScript loader is not loaded there). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const port = workerData.port;
const pending = new Map();
let nextId = 0;
port.on('message', (reply) => {
  const call = pending.get(reply.id);
  pending.delete(reply.id);
  if (reply.error !== undefined) call.reject(new Error(reply.error));
  else call.resolve(reply.value);
});
const tools = new Proxy({}, {
  get: (_, name) => (args) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    port.postMessage({ id, name: String(name), args });
  }),
});
const AsyncFunction = (async () => {}).constructor;
new AsyncFunction('tools', workerData.program)(tools).then(
  (value) => port.postMessage({ done: true, value }),
  (error) => port.postMessage({ done: true, error: String(error && error.stack || error) }),
);
`;

interface WorkerMessage {
  readonly id?: number;
  readonly name?: string;
  readonly args?: unknown;
  readonly done?: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

export function workerThreadsPeer(): Peer {
  const terminating = new Set<Promise<number>>();

  const run = (program: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const { port1, port2 } = new MessageChannel();
      // execArgv [] keeps the host's --import loader out of the Worker, as a library would.
      const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { port: port2, program }, transferList: [port2] });
      const finish = () => {
        port1.close();
        const ending = worker.terminate();
        terminating.add(ending);
        void ending.finally(() => terminating.delete(ending));
      };
      worker.once('error', (error) => {
        finish();
        reject(error);
      });
      port1.on('message', (message: WorkerMessage) => {
        if (message.done === true) {
          finish();
          if (message.error !== undefined) reject(new Error(`worker_threads program failed: ${message.error}`));
          else resolve(message.value);
          return;
        }
        // The binding: an echo, answered on the same port.
        port1.postMessage({ id: message.id, value: message.args });
      });
    });

  return {
    name: 'worker_threads',
    isolating: false,
    run,
    close: async () => {
      await Promise.all(terminating);
    },
  };
}
