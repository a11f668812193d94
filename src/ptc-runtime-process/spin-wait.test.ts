// SpinWait on a real Unix socket pair (both ends in this process, the reading end never started by
// libuv, so only the waits read it): what a wait catches, what it skips after misses, that it
// gives the event loop a turn after holding it SPIN_STREAK_NS, and that it never reads a closed socket.

import { writeSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SPIN_STREAK_NS } from './limits.js';
import { socketFd } from './raw-channel.js';
import { SpinWait } from './spin-wait.js';

interface Pair {
  readonly reader: net.Socket;
  readonly writer: net.Socket;
  readonly close: () => void;
}

async function socketPair(): Promise<Pair> {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-spin-'));
  const path = join(dir, 's');
  const server = net.createServer({ pauseOnConnect: true });
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const writer = net.connect(path);
  await new Promise<void>((resolve) => writer.once('connect', () => resolve()));
  const reader = await accepted;
  return {
    reader,
    writer,
    close: () => {
      reader.destroy();
      writer.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let pair: Pair;
let reads: string[];
let wait: SpinWait;
const buffer = Buffer.alloc(1024);

function send(text: string): void {
  writeSync(socketFd(pair.writer) as number, text);
}

beforeEach(async () => {
  pair = await socketPair();
  reads = [];
  const { reader } = pair;
  wait = new SpinWait(() => (reader.destroyed ? undefined : socketFd(reader)), buffer, (bytes) => reads.push(buffer.toString('utf8', 0, bytes)));
});
afterEach(() => pair.close());

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SpinWait', () => {
  it('hands what is already waiting to onRead before replied() returns', async () => {
    await turn();
    send('{"a":1}\n');
    wait.replied();
    expect(reads).toEqual(['{"a":1}\n']);
  });

  it('skips 0, 1, 3 waits after misses in a row and starts over after a catch', async () => {
    // A turn before each wait, so that the streak bound never puts one off.
    const replied = async () => {
      await turn();
      wait.replied();
    };
    await replied(); // miss 1: no wait skipped
    send('x\n');
    await replied(); // made: catches x, starts over
    expect(reads).toEqual(['x\n']);
    await replied(); // miss 1
    await replied(); // miss 2: skip 1
    send('y\n');
    await replied(); // skipped
    expect(reads.at(-1)).toBe('x\n');
    await replied(); // made: catches y, starts over
    expect(reads.at(-1)).toBe('y\n');
    await replied(); // miss 1
    await replied(); // miss 2: skip 1
    await replied(); // skipped
    await replied(); // miss 3: skip 3
    send('z\n');
    for (let i = 0; i < 3; i++) {
      await replied();
      expect(reads.at(-1)).toBe('y\n');
    }
    await replied();
    expect(reads.at(-1)).toBe('z\n');
  });

  /** Makes waits that each catch at once until one is put off to after a turn; returns how long that took. */
  function holdUntilPutOff(): bigint {
    const start = process.hrtime.bigint();
    for (let i = 0; ; i++) {
      send(`${i}\n`);
      const before = reads.length;
      wait.replied();
      const now = process.hrtime.bigint();
      if (reads.length === before) return now - start;
      // A bound on the loop, not a time: a wait that is never put off fails here.
      expect(i).toBeLessThan(1_000_000);
    }
  }

  it('holds the event loop at most SPIN_STREAK_NS in a row, then waits after one turn', async () => {
    await turn();
    const held = holdUntilPutOff();
    expect(held).toBeGreaterThanOrEqual(SPIN_STREAK_NS);
    const caught = reads.length;
    await turn();
    expect(reads.length).toBe(caught + 1);
    // The turn started a new streak: the next wait is made on the spot again.
    send('again\n');
    wait.replied();
    expect(reads.at(-1)).toBe('again\n');
  });

  it('drops a wait put off to after the turn when cancelled', async () => {
    await turn();
    holdUntilPutOff();
    const caught = reads.length;
    wait.cancel();
    await turn();
    expect(reads.length).toBe(caught);
  });

  it('reads nothing once the socket is closed', async () => {
    await turn();
    send('x\n');
    pair.reader.destroy();
    expect(() => wait.replied()).not.toThrow();
    expect(reads).toEqual([]);
  });
});
