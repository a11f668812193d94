// The child's end of the control channel on fd 3 (docs/control-channel.md, "Hot path"): frames to
// the host are written in batches or at once, one write(2) when the socket has nothing queued;
// frames from the host are split on LF straight from each read and handed to onHostFrame. Every
// method on the way is captured before any program runs, so a kept program's patch of a prototype
// (Buffer, String, Socket) cannot read, rewrite or answer a later run's frames (docs/in-memory-mode.md).

import type { HostFrame } from '../../../../ptc-runtime-process/frames.js';

const { writeSync } = require('node:fs') as typeof import('node:fs');
const { Socket } = require('node:net') as typeof import('node:net');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const parseJson: typeof import('./primordials.js').parseJson;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const exitProcess: typeof import('./primordials.js').exitProcess;
declare const nextTick: typeof import('./primordials.js').nextTick;
declare const stringIndexOf: typeof import('./primordials.js').stringIndexOf;
declare const stringSlice: typeof import('./primordials.js').stringSlice;
declare const arrayPush: typeof import('./primordials.js').arrayPush;
declare const bufferToString: typeof import('./primordials.js').bufferToString;
declare const bufferLastIndexOf: typeof import('./primordials.js').bufferLastIndexOf;
declare const bufferSubarray: typeof import('./primordials.js').bufferSubarray;
declare const bufferFrom: typeof import('./primordials.js').bufferFrom;
declare const bufferConcat: typeof import('./primordials.js').bufferConcat;
declare const bufferFill: typeof import('./primordials.js').bufferFill;
declare const runStorage: typeof import('./primordials.js').runStorage;
declare const onHostFrame: typeof import('./bootstrap.js').onHostFrame;

const CHANNEL_FD = 3;
const LF = 0x0a;
/** One read of the channel at most; a longer frame arrives in several reads. */
const READ_BUFFER_BYTES = 64 * 1024;

const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
// `onread` hands each read to onChannelRead directly, without the Readable stream's buffering,
// events and string decoder (docs/control-channel.md, "Hot path"); the end of the channel still
// comes as the stream's 'end'. The constructor takes it as net.connect() does (its type lists it
// only for connect).
const channelOptions: import('node:net').SocketConstructorOpts & { onread: import('node:net').OnReadOpts } = {
  fd: CHANNEL_FD,
  readable: true,
  writable: true,
  onread: {
    buffer: readBuffer,
    callback: (bytes: number) => {
      onChannelRead(bytes, readBuffer);
      return true;
    },
  },
};
const channel = new Socket(channelOptions);
// The stream's own entry points, taken now and called on the socket directly; the methods the stream
// calls on it become own read-only properties, so a program that finds the socket
// (process._getActiveHandles) or patches Socket.prototype cannot take over the writes.
const socketWrite = Function.prototype.call.bind(channel.write) as (socket: typeof channel, text: string | Buffer) => boolean;
const { Duplex } = require('node:stream') as typeof import('node:stream');
const writableLength = Function.prototype.call.bind(
  (Object.getOwnPropertyDescriptor(Duplex.prototype, 'writableLength') as PropertyDescriptor).get as () => number,
) as (socket: typeof channel) => number;
for (const name of ['write', '_write', '_writev', '_writeGeneric']) {
  const method = (channel as unknown as Record<string, unknown>)[name];
  if (typeof method === 'function') Object.defineProperty(channel, name, { value: method, writable: false, configurable: false });
}

/** While the bootstrap warms its run path up (bootstrap.ts), what would be written goes here instead. */
let captured: string[] | undefined;

/** Starts keeping what would be written, for the warm-up before `ready`; returns the list it fills. */
export function captureWrites(): string[] {
  captured = [];
  return captured;
}

/** Ends the capture and forgets the batching state the warm-up left, as after a fresh start. */
export function releaseWrites(): void {
  captured = undefined;
  outgoing = '';
  flushScheduled = false;
  queuedCalls = 0;
  lastBatchCalls = 0;
}

/** Call frames made in one turn of the event loop, written together (docs/control-channel.md, "Hot path"). */
let outgoing = '';
let flushScheduled = false;
/** Calls queued in this turn, and in the last batch written: 1 while the program calls one at a time. */
let queuedCalls = 0;
let lastBatchCalls = 0;

/**
 * Writes a call frame. A program calling one at a time (`alone`: the only call in flight, and so was
 * the last batch) gets its call written now instead of from the tick: nothing would join it, and the
 * tick costs the sequential round trip more than the write (docs/control-channel.md, "Hot path"). A
 * Promise.all's calls still go out together.
 */
export function writeCall(line: string, alone: boolean): void {
  if (alone && !flushScheduled && lastBatchCalls <= 1) {
    lastBatchCalls = 1;
    send(line + '\n');
    return;
  }
  queuedCalls++;
  queueFrame(line);
}

function queueFrame(line: string): void {
  outgoing += line + '\n';
  if (!flushScheduled) {
    flushScheduled = true;
    // A tick queued from a microtask runs once the microtask queue is empty: every call the program
    // starts before it next waits on I/O goes out in one write.
    nextTick(flushFrames);
  }
}

function flushFrames(): void {
  flushScheduled = false;
  lastBatchCalls = queuedCalls;
  queuedCalls = 0;
  if (outgoing === '') return;
  const text = outgoing;
  outgoing = '';
  send(text);
}

/** Writes a frame at once, after the queued ones (logs and `done` are never held back). */
export function write(line: string): void {
  const text = outgoing + line + '\n';
  outgoing = '';
  send(text);
}

/**
 * Writes `text` with one write(2) when nothing is queued on the socket, else through the stream,
 * which keeps the order. The socket is non-blocking: when the host is behind, what the kernel did not
 * take is queued on the stream, and so is everything after it until the queue is empty.
 */
function send(text: string): void {
  if (captured !== undefined) {
    captured.push(text);
    return;
  }
  if (writableLength(channel) === 0) {
    let written: number;
    try {
      written = writeSync(CHANNEL_FD, text);
    } catch {
      // EAGAIN, or the channel is gone: the stream queues the text or reports the error ('error' below).
      socketWrite(channel, text);
      return;
    }
    if (written < byteLength(text, 'utf8')) socketWrite(channel, bufferSubarray(bufferFrom(text, 'utf8'), written));
    return;
  }
  socketWrite(channel, text);
}

// The host ending the channel means it is gone or done with us.
channel.on('end', () => exitProcess(0));
channel.on('error', () => exitProcess(0));

/**
 * Clears the read buffer, which a program can reach through the socket's symbols: after the first run
 * frame of a kept process, which holds its channel key (docs/in-memory-mode.md), before its program runs.
 */
export function wipeReads(): void {
  bufferFill(readBuffer, 0);
}

/** Bytes of an unfinished line, copied out of the read buffer (which the next read reuses). */
let incoming: Buffer[] = [];

/** Parses every complete line of one read; the bytes after the last LF wait for the next read. */
export function onChannelRead(bytes: number, buffer: Buffer): void {
  // The socket's reads come in no run's context; a program that found this callback (through the
  // socket's symbols) and calls it to feed the bootstrap its own replies does so from a run's context.
  if (runStorage.getStore() !== undefined) return;
  const last = bufferLastIndexOf(buffer, LF, bytes - 1);
  if (last === -1) {
    arrayPush(incoming, bufferFrom(bufferSubarray(buffer, 0, bytes)));
    return;
  }
  // Decoded up to an LF only, so a UTF-8 character split across reads is never cut.
  let text: string;
  if (incoming.length === 0) text = bufferToString(buffer, 'utf8', 0, last);
  else {
    arrayPush(incoming, bufferSubarray(buffer, 0, last));
    text = bufferToString(bufferConcat(incoming), 'utf8');
    // The copies may sit in Buffer's shared pool, which a program can read: they may hold a kept
    // process's channel key (wipeReads).
    for (let i = 0; i < incoming.length - 1; i++) bufferFill(incoming[i] as Buffer, 0);
    incoming = [];
  }
  if (last + 1 < bytes) arrayPush(incoming, bufferFrom(bufferSubarray(buffer, last + 1, bytes)));
  let start = 0;
  let newline = stringIndexOf(text, '\n');
  while (newline !== -1) {
    onHostFrame(parseJson(stringSlice(text, start, newline)) as HostFrame);
    start = newline + 1;
    newline = stringIndexOf(text, '\n', start);
  }
  onHostFrame(parseJson(start === 0 ? text : stringSlice(text, start)) as HostFrame);
}
