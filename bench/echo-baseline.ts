// The pipe's limit on this machine, measured in the same run as the runtime's round trips: a bare
// NDJSON echo over fd 3 between two Node processes, with nothing else on either side (no sandbox, no
// validation, no bindings). The runtime's binding rows are read as ratios to these figures
// (docs/control-channel.md, "Hot path").

import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { median } from './median.js';

/**
 * The child: parse each line, answer with the same id, one write per line. It is what a minimal
 * NDJSON peer does, so it is the ceiling a channel with frames and checks can approach.
 */
const ECHO_CHILD = `
const channel = new (require('node:net').Socket)({ fd: 3, readable: true, writable: true });
let partial = '';
channel.setEncoding('utf8');
channel.on('data', (chunk) => {
  const text = partial + chunk;
  let start = 0;
  let newline = text.indexOf('\\n');
  while (newline !== -1) {
    const frame = JSON.parse(text.slice(start, newline));
    channel.write(JSON.stringify({ id: frame.id, value: frame.args }) + '\\n');
    start = newline + 1;
    newline = text.indexOf('\\n', start);
  }
  partial = text.slice(start);
});
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
 * Round trips per second of the bare echo, sequential and with 10 in flight, each the median of
 * three passes of `calls` calls (the same shape as the runtime's round-trip programs).
 */
export async function echoBaseline(calls: number): Promise<{ sequentialPerSec: number; tenLanesPerSec: number }> {
  const peer = await startPeer();
  try {
    // A short warm-up so neither side is measured while its code is still cold.
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
