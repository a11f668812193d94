import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readIntoBuffer, writeNow } from './raw-channel.js';

/** A connected pair of unix sockets, as the host's end of a child's channel and the child's end. */
async function socketPair(): Promise<{ host: Socket; child: Socket; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-raw-channel-'));
  const path = join(dir, 's');
  const server: Server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const child = connect(path);
  const host = await accepted;
  host.pause();
  return {
    host,
    child,
    close: () => {
      host.destroy();
      child.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('readIntoBuffer', () => {
  it('hands each read to the callback from the one buffer, emits no data events, and still ends the stream', async () => {
    const pair = await socketPair();
    cleanup = pair.close;
    const buffer = Buffer.alloc(16);
    const texts: string[] = [];
    let dataEvents = 0;
    expect(readIntoBuffer(pair.host, buffer, (bytes) => texts.push(buffer.toString('utf8', 0, bytes)))).toBe(true);
    pair.host.on('data', () => dataEvents++);
    const ended = new Promise<void>((resolve) => pair.host.once('end', resolve));
    pair.host.resume();
    pair.child.write('{"a":1}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    pair.child.end('0123456789abcdefXYZ');
    await ended;
    expect(texts.join('')).toBe('{"a":1}\n0123456789abcdefXYZ');
    expect(texts.every((text) => Buffer.byteLength(text) <= 16)).toBe(true);
    expect(dataEvents).toBe(0);
  });

  it('refuses a socket already set up to read into a buffer of its own, changing nothing', async () => {
    const pair = await socketPair();
    cleanup = pair.close;
    const first = Buffer.alloc(8);
    expect(readIntoBuffer(pair.host, first, () => undefined)).toBe(true);
    expect(readIntoBuffer(pair.host, Buffer.alloc(8), () => undefined)).toBe(false);
  });
});

describe('writeNow', () => {
  it('writes at once while nothing is queued, and queues in order behind what the kernel did not take', async () => {
    const pair = await socketPair();
    cleanup = pair.close;
    // The child reads nothing yet: a few MiB fill the socket's buffers and the rest waits on the stream.
    const big = 'x'.repeat(4 * 1024 * 1024);
    expect(writeNow(pair.host, 'first\n')).toBe(0);
    const queued = writeNow(pair.host, `${big}\n`);
    expect(queued).toBeGreaterThan(0);
    expect(writeNow(pair.host, 'last\n')).toBeGreaterThan(queued);
    const received: Buffer[] = [];
    pair.child.on('data', (chunk: Buffer) => received.push(chunk));
    await new Promise<void>((resolve) => {
      const check = () => (Buffer.concat(received).toString('utf8').endsWith('last\n') ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(Buffer.concat(received).toString('utf8')).toBe(`first\n${big}\nlast\n`);
    expect(pair.host.writableLength).toBe(0);
  });

  it('counts bytes, not characters, of what it queues', async () => {
    const pair = await socketPair();
    cleanup = pair.close;
    writeNow(pair.host, 'é'.repeat(4 * 1024 * 1024));
    const queued = pair.host.writableLength;
    expect(queued).toBeGreaterThan(0);
    expect(writeNow(pair.host, 'éé')).toBe(queued + 4);
  });
});
