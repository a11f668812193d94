// The bench's side of a peer run in a process of its own (bench/peer-server.ts): each run is one
// NDJSON request on the child's stdin and one reply on its fd 3, and the reply carries the run's
// time as the peer's process measured it (docs/benchmarks.md, "The peer table").

import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TimedPeer } from './peers.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = dirname(BENCH_DIR);

export interface PeerProcessOptions {
  /** The Node binary to run the peer with (the bench's own when the peer runs on it). */
  readonly node: string;
  /** The module that exports the peer's factory, and the export's name. */
  readonly module: string;
  readonly exportName: string;
}

interface Reply {
  readonly id: number;
  readonly ready?: boolean;
  readonly name?: string;
  readonly isolating?: boolean;
  readonly ok?: boolean;
  readonly value?: unknown;
  readonly ms?: number;
  readonly error?: string;
}

/** Starts the peer's process and resolves once it has loaded the peer. */
export async function startPeerProcess(options: PeerProcessOptions): Promise<TimedPeer> {
  const child: ChildProcess = spawn(
    options.node,
    ['--import', join(REPO_DIR, 'scripts', 'ts-register.mjs'), join(BENCH_DIR, 'peer-server.ts'), options.module, options.exportName],
    { cwd: REPO_DIR, stdio: ['pipe', 'ignore', 'inherit', 'pipe'] },
  );
  const waiting = new Map<number, (reply: Reply) => void>();
  let nextId = 1;
  let exited: string | undefined;
  const failAll = (why: string) => {
    exited = why;
    for (const resolve of waiting.values()) resolve({ id: -1, ok: false, error: why });
    waiting.clear();
  };
  child.once('exit', (code, signal) => failAll(`the peer process exited (${signal ?? code})`));
  child.once('error', (error) => failAll(`the peer process could not start: ${error.message}`));
  const ready = new Promise<Reply>((resolve) => waiting.set(0, resolve));
  createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => {
    const reply = JSON.parse(line) as Reply;
    const resolve = waiting.get(reply.id);
    waiting.delete(reply.id);
    resolve?.(reply);
  });
  const request = (op: 'run' | 'close', program?: string): Promise<Reply> => {
    if (exited !== undefined) return Promise.resolve({ id: -1, ok: false, error: exited });
    const id = nextId++;
    return new Promise<Reply>((resolve) => {
      waiting.set(id, resolve);
      child.stdin!.write(JSON.stringify({ id, op, program }) + '\n');
    });
  };
  const hello = await ready;
  if (hello.ready !== true) throw new Error(`${options.module}: ${hello.error ?? 'the peer process did not start'}`);
  return {
    name: hello.name ?? options.exportName,
    isolating: hello.isolating === true,
    runTimed: async (program) => {
      const reply = await request('run', program);
      if (reply.ok !== true) throw new Error(`${hello.name}: ${reply.error ?? 'the run failed'}`);
      return { value: reply.value, ms: reply.ms ?? Number.NaN };
    },
    close: async () => {
      if (exited === undefined) await request('close');
    },
  };
}
