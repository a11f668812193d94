// The host's end of a control channel without the stream machinery on the hot path
// (docs/control-channel.md, "Hot path"): reads land in one reused buffer and go to a callback, the
// way net.Socket's `onread` option delivers them (no Readable buffering, `data` events or read-ahead
// tick), and a write is one write(2) when nothing is queued on the socket. Everything else (the end
// of the channel, errors, a write the kernel does not take at once) stays with the socket's stream.

import { writeSync } from 'node:fs';
import type { Socket } from 'node:net';

/** The socket fields net.Socket's `onread` option sets, by their symbols' names (they are not exported). */
const USER_BUFFER_FIELDS = ['kBuffer', 'kBufferCb', 'kBufferGen'] as const;

interface StreamHandle {
  readonly fd?: number;
  useUserBuffer?(buffer: Uint8Array): void;
}

function handleOf(socket: Socket): StreamHandle | undefined {
  const handle = (socket as unknown as { _handle?: StreamHandle | null })._handle;
  return handle === null ? undefined : handle;
}

/** The socket's file descriptor, or undefined once it has none (or on a Node that hides it). */
export function socketFd(socket: Socket): number | undefined {
  const fd = handleOf(socket)?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Makes `socket` deliver each read into `buffer` and call `onRead(bytes)` instead of emitting
 * `data`, as a socket made with `onread` does; the buffer is reused by the next read. Call it before
 * reading starts. False (and nothing changed) where this Node lays the socket out otherwise: the
 * caller then reads `data` events.
 */
export function readIntoBuffer(socket: Socket, buffer: Buffer, onRead: (bytes: number) => void): boolean {
  const handle = handleOf(socket);
  if (handle === undefined || typeof handle.useUserBuffer !== 'function') return false;
  const symbols = new Map(Object.getOwnPropertySymbols(socket).map((symbol) => [symbol.description, symbol]));
  const [kBuffer, kBufferCb, kBufferGen] = USER_BUFFER_FIELDS.map((name) => symbols.get(name));
  if (kBuffer === undefined || kBufferCb === undefined || kBufferGen === undefined) return false;
  const fields = socket as unknown as Record<symbol, unknown>;
  // A socket made without `onread` has the three set to null; anything else is a layout we do not know.
  if (fields[kBuffer] !== null || fields[kBufferCb] !== null || fields[kBufferGen] !== null) return false;
  fields[kBuffer] = buffer;
  fields[kBufferCb] = (bytes: number) => {
    onRead(bytes);
    return true;
  };
  handle.useUserBuffer(buffer);
  return true;
}

/**
 * Writes `text` with one write(2) when nothing is queued on the socket, else through the stream,
 * which keeps the order; what the kernel does not take at once (the child is behind) is queued on the
 * stream too, and every later write follows it there until its queue is empty. Returns the bytes
 * queued on the stream, which the child has not read yet.
 */
export function writeNow(socket: Socket, text: string): number {
  const fd = socketFd(socket);
  if (socket.writableLength === 0 && fd !== undefined && !socket.destroyed) {
    let written: number;
    try {
      written = writeSync(fd, text);
    } catch {
      // EAGAIN, or the channel is gone: the stream queues the text or reports the error.
      socket.write(Buffer.from(text, 'utf8'));
      return socket.writableLength;
    }
    if (written < Buffer.byteLength(text, 'utf8')) socket.write(Buffer.from(text, 'utf8').subarray(written));
    return socket.writableLength;
  }
  // A Buffer, so that writableLength counts bytes (for a string it counts UTF-16 code units).
  socket.write(Buffer.from(text, 'utf8'));
  return socket.writableLength;
}
