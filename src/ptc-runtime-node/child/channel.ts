// The child's end of the control channel on fd 3 (docs/control-channel.md, "Hot path"): frames to
// the host are written in batches or at once, one write(2) when the socket has nothing queued;
// frames from the host are split on LF straight from each read and handed to onHostFrame.

import type { HostFrame } from '../../ptc-runtime-process/frames.js';

const { writeSync } = require('node:fs') as typeof import('node:fs');
const { Socket } = require('node:net') as typeof import('node:net');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const parseJson: typeof import('./primordials.js').parseJson;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const exitProcess: typeof import('./primordials.js').exitProcess;
declare const nextTick: typeof import('./primordials.js').nextTick;
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
  if (channel.writableLength === 0) {
    let written: number;
    try {
      written = writeSync(CHANNEL_FD, text);
    } catch {
      // EAGAIN, or the channel is gone: the stream queues the text or reports the error ('error' below).
      channel.write(text);
      return;
    }
    if (written < byteLength(text, 'utf8')) channel.write(Buffer.from(text, 'utf8').subarray(written));
    return;
  }
  channel.write(text);
}

// The host ending the channel means it is gone or done with us.
channel.on('end', () => exitProcess(0));
channel.on('error', () => exitProcess(0));

/** Bytes of an unfinished line, copied out of the read buffer (which the next read reuses). */
let incoming: Buffer[] = [];

/** Parses every complete line of one read; the bytes after the last LF wait for the next read. */
export function onChannelRead(bytes: number, buffer: Buffer): void {
  const last = buffer.lastIndexOf(LF, bytes - 1);
  if (last === -1) {
    incoming.push(Buffer.from(buffer.subarray(0, bytes)));
    return;
  }
  // Decoded up to an LF only, so a UTF-8 character split across reads is never cut.
  let text: string;
  if (incoming.length === 0) text = buffer.toString('utf8', 0, last);
  else {
    incoming.push(buffer.subarray(0, last));
    text = Buffer.concat(incoming).toString('utf8');
    incoming = [];
  }
  if (last + 1 < bytes) incoming.push(Buffer.from(buffer.subarray(last + 1, bytes)));
  let start = 0;
  let newline = text.indexOf('\n');
  while (newline !== -1) {
    onHostFrame(parseJson(text.slice(start, newline)) as HostFrame);
    start = newline + 1;
    newline = text.indexOf('\n', start);
  }
  onHostFrame(parseJson(start === 0 ? text : text.slice(start)) as HostFrame);
}
