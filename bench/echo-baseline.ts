// The pipe's limit on this machine, measured in the same run as the runtime's round trips: a bare
// NDJSON echo over fd 3 between two Node processes, with nothing else on either side (no sandbox, no
// validation, no bindings). The runtime's binding rows are read as ratios to it, measured the way our
// programs are (a fresh process per pass, in turns with them); the same echo kept warm in one process
// is shown beside it (docs/benchmarks.md, "The bare echo").

import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { median } from './median.js';
import type { Contender } from './peers.js';

/**
 * The child: split each read on LF, parse each line, answer with the same id, one write(2) per read.
 * It reads and writes the channel as our own child does (an `onread` buffer, `writeSync` on fd 3;
 * docs/control-channel.md, "Hot path"), so the ratio isolates what our frames, checks and bindings
 * cost, not a difference in I/O style (docs/benchmarks.md, "The bare echo").
 */
const ECHO_CHILD = `
const { writeSync } = require('node:fs');
const buffer = Buffer.allocUnsafe(65536);
let partial = '';
const onread = { buffer, callback: (bytes) => {
  const text = partial + buffer.toString('utf8', 0, bytes);
  let start = 0;
  let newline = text.indexOf('\\n');
  let out = '';
  while (newline !== -1) {
    const frame = JSON.parse(text.slice(start, newline));
    out += JSON.stringify({ id: frame.id, value: frame.args }) + '\\n';
    start = newline + 1;
    newline = text.indexOf('\\n', start);
  }
  partial = text.slice(start);
  if (out !== '') writeSync(3, out);
  return true;
} };
const channel = new (require('node:net').Socket)({ fd: 3, readable: true, writable: true, onread });
channel.on('end', () => process.exit(0));
`;

interface EchoPeer {
  call(args: number): Promise<unknown>;
  close(): Promise<void>;
}

function startPeer(): Promise<EchoPeer> {
  // The same minimal environment the runtime gives its children.
  const child: ChildProcess = spawn(process.execPath, ['-e', ECHO_CHILD], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
  });
  const channel = child.stdio[3] as Socket;
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  let partial = '';
  channel.setEncoding('utf8');
  channel.on('data', (chunk: string) => {
    const text = partial + chunk;
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      const frame = JSON.parse(text.slice(start, newline)) as { id: number; value: unknown };
      const resolve = pending.get(frame.id);
      pending.delete(frame.id);
      resolve?.(frame.value);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    partial = text.slice(start);
  });
  const peer: EchoPeer = {
    call(args) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        channel.write(JSON.stringify({ id, args }) + '\n');
      });
    },
    close() {
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        channel.end();
      });
    },
  };
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(peer));
    child.once('error', reject);
  });
}

async function callsPerSecond(peer: EchoPeer, calls: number, width: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i += width) {
    if (width === 1) await peer.call(i);
    else await Promise.all(Array.from({ length: width }, (_, k) => peer.call(i + k)));
  }
  return calls / ((performance.now() - start) / 1000);
}

/**
 * The echo as a contender of the rate workloads (bench/peers.ts), in turns with our programs: each
 * pass starts a fresh echo process and times its calls from the first, as each of our rate programs
 * runs in a fresh child and is timed from its start (docs/benchmarks.md, "The bare echo").
 */
export function echoContender(): Contender {
  return {
    name: 'bare fd-3 NDJSON echo, a fresh process per pass',
    isolating: false,
    ratesOnly: true,
    oneCall: () => Promise.reject(new Error('the bare echo takes part in the rate workloads only')),
    callsPerSecond: async (calls, width) => {
      const peer = await startPeer();
      try {
        // Untimed: the process is up and reading, as our pooled child is when its program starts.
        await peer.call(0);
        return await callsPerSecond(peer, calls, width);
      } finally {
        await peer.close();
      }
    },
  };
}

/**
 * The same echo kept in one process and warmed with 1,000 calls first, then the median of three passes
 * of `calls` calls each way: its rate once V8 has optimised both sides, which a fresh child only
 * reaches thousands of calls in (docs/runtime-lifecycle.md, "Where the rest goes").
 */
export async function warmEchoRates(calls: number): Promise<{ sequentialPerSec: number; tenLanesPerSec: number }> {
  const peer = await startPeer();
  try {
    await callsPerSecond(peer, Math.min(calls, 1_000), 1);
    const sequential: number[] = [];
    const tenLanes: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      sequential.push(await callsPerSecond(peer, calls, 1));
      tenLanes.push(await callsPerSecond(peer, calls, 10));
    }
    return { sequentialPerSec: median(sequential), tenLanesPerSec: median(tenLanes) };
  } finally {
    await peer.close();
  }
}
