// The child's end of the control channel on fd 3 (docs/control-channel.md, "Hot path"): frames to
// the host are written in batches or at once, one write(2) when the socket has nothing queued;
// frames from the host are split on LF straight from each read and handed to onHostFrame. Every
// method on the way is captured before any program runs, so a kept program's patch of a prototype
// (Buffer, String, Socket) cannot read, rewrite or answer a later run's frames (docs/in-memory-mode.md).

import type { HostFrame } from '../../../../ptc-runtime-process/frames.js';

const { readSync, writeSync } = require('node:fs') as typeof import('node:fs');
const { Socket } = require('node:net') as typeof import('node:net');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const parseJson: typeof import('./primordials.js').parseJson;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const exitProcess: typeof import('./primordials.js').exitProcess;
declare const nextTick: typeof import('./primordials.js').nextTick;
declare const setImmediateNow: typeof import('./primordials.js').setImmediateNow;
declare const hrtimeBigint: typeof import('./primordials.js').hrtimeBigint;
declare const errorConstructor: typeof import('./primordials.js').errorConstructor;
declare const getOwnPropertyDescriptor: typeof import('./primordials.js').getOwnPropertyDescriptor;
declare const errorPrototype: typeof import('./primordials.js').errorPrototype;
declare const objectPrototype: typeof import('./primordials.js').objectPrototype;
declare const ownKeys: typeof import('./primordials.js').ownKeys;
declare const arrayIncludes: typeof import('./primordials.js').arrayIncludes;
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
/**
 * The longest a lone call waits for its reply without sleeping (waitForReply), and the longest the
 * program's event loop is held by such waits in a row (docs/control-channel.md, "Waiting without
 * sleeping"). The host answers a trivial call in 10-40 µs here.
 */
const SPIN_WAIT_NS = 100_000n;
const SPIN_STREAK_NS = 1_000_000n;
const SPIN_BACKOFF_MAX = 64;

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
  loneCalls = 0;
}

/** Call frames made in one turn of the event loop, written together (docs/control-channel.md, "Hot path"). */
let outgoing = '';
let flushScheduled = false;
/** Calls queued in this turn, and in the last batch written: 1 while the program calls one at a time. */
let queuedCalls = 0;
let lastBatchCalls = 0;
/** Lone calls written in a row (writeCall): the child waits for a reply from the second on. */
let loneCalls = 0;

/**
 * Writes a call frame. A program calling one at a time (`alone`: the only call in flight, and so was
 * the last batch) gets its call written now instead of from the tick: nothing would join it, and the
 * tick costs the sequential round trip more than the write (docs/control-channel.md, "Hot path"). A
 * Promise.all's calls still go out together.
 */
export function writeCall(line: string, alone: boolean): void {
  if (alone && !flushScheduled && lastBatchCalls <= 1) {
    lastBatchCalls = 1;
    loneCalls++;
    // Only from the second lone call in a row: a program making one call and returning (most
    // warm runs) settles faster when its process was asleep, not waiting, just before it ended
    // (docs/control-channel.md, "Waiting without sleeping").
    if (send(line + '\n') && loneCalls > 1) waitForReply();
    return;
  }
  loneCalls = 0;
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
 * take is queued on the stream, and so is everything after it until the queue is empty. True when
 * the whole text went out now.
 */
function send(text: string): boolean {
  if (captured !== undefined) {
    captured.push(text);
    return false;
  }
  // writeSync's EAGAIN is an error Node builds by assigning its fields: only while that runs no
  // program code (nodeErrorsAreInert); else the stream, whose EAGAIN stays inside libuv.
  if (writableLength(channel) === 0 && nodeErrorsAreInert()) {
    let written: number;
    try {
      written = writeSync(CHANNEL_FD, text);
    } catch {
      // EAGAIN, or the channel is gone: the stream queues the text or reports the error ('error' below).
      socketWrite(channel, text);
      return false;
    }
    if (written < byteLength(text, 'utf8')) {
      socketWrite(channel, bufferSubarray(bufferFrom(text, 'utf8'), written));
      return false;
    }
    return true;
  }
  socketWrite(channel, text);
  return false;
}

/** When the current streak of waits began, and whether the event loop has turned since. */
let streakStart = 0n;
let loopTurned = true;
/** Whether a lone call's reply is awaited by a wait: set when it is written, cleared by any read. */
let replyDue = false;
/** Waits to skip before the next one, and how many the next miss skips (0, 1, 3, 7, ...; a catch resets it). */
let skipWaits = 0;
let backoff = 0;
/** Set while a read made by a wait is handled: a wait from inside it would nest. */
let waiting = false;
function markTurned(): void {
  loopTurned = true;
}

/** Whether the event loop may be held now: a streak starts when it has turned since the last one. */
function mayHoldLoop(now: bigint): boolean {
  if (loopTurned) {
    loopTurned = false;
    streakStart = now;
    setImmediateNow(markTurned);
    return true;
  }
  return now - streakStart < SPIN_STREAK_NS;
}

/** The own keys of the prototypes of an error Node makes, as they were before any program ran. */
const ERROR_PROTOTYPE_KEYS = ownKeys(errorPrototype);
const OBJECT_PROTOTYPE_KEYS = ownKeys(objectPrototype);

function keysAsBefore(object: object, before: readonly (string | symbol)[]): boolean {
  const now = ownKeys(object);
  if (now.length !== before.length) return false;
  for (let i = 0; i < now.length; i++) if (!arrayIncludes(before, now[i])) return false;
  return true;
}

/**
 * Whether an error Node builds for a failed read or write (an empty read's EAGAIN in a wait, a full
 * socket's EAGAIN in writeSync) runs no program code. Node assigns such an error's fields (`code`,
 * `errno`, `syscall`, and `fd` on an object of its own) and, when the limit is writable, sets
 * Error.stackTraceLimit around the capture: a setter a program defined on Error.prototype or
 * Object.prototype for such a name, or an accessor limit, would run inside the bootstrap (in a kept
 * process: an earlier program's code in the running program's context; docs/in-memory-mode.md).
 * True only while both prototypes have exactly the own keys they had before any program ran,
 * whatever names a Node version assigns, and the limit is the real Error's writable number; else the
 * child neither waits nor uses writeSync, and its replies and writes go through the socket's stream.
 */
function nodeErrorsAreInert(): boolean {
  const limit = getOwnPropertyDescriptor(errorConstructor, 'stackTraceLimit');
  if (limit === undefined || limit.writable !== true || typeof limit.value !== 'number') return false;
  return keysAsBefore(errorPrototype, ERROR_PROTOTYPE_KEYS) && keysAsBefore(objectPrototype, OBJECT_PROTOTYPE_KEYS);
}

/**
 * Reads the channel (non-blocking) until a read returns or `end` passes: the bytes read, 0 at its
 * end, -1 when nothing came or the read failed otherwise. Each empty read is an EAGAIN error Node
 * throws, about 40% cheaper without a stack, so the limit is 0 for the loop (nodeErrorsAreInert has
 * checked it is the real Error's writable number).
 */
function readFor(end: bigint): number {
  const limit = errorConstructor.stackTraceLimit;
  errorConstructor.stackTraceLimit = 0;
  try {
    do {
      try {
        return readSync(CHANNEL_FD, readBuffer, 0, READ_BUFFER_BYTES, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return -1;
      }
    } while (hrtimeBigint() < end);
    return -1;
  } finally {
    errorConstructor.stackTraceLimit = limit;
  }
}

/**
 * A lone call was just written (docs/control-channel.md, "Waiting without sleeping"): reads the
 * channel without blocking for up to SPIN_WAIT_NS and handles what comes as a read from the event
 * loop would be, so the reply settles the call before the process sleeps in epoll, saving a wake-up
 * per call. Misses in a row make the next waits rarer (none skipped after the first, then 1, 3, 7,
 * ... up to SPIN_BACKOFF_MAX; a catch starts over), and the event loop is never held for more than
 * SPIN_STREAK_NS in a row: then the wait is made after one turn of it, so the program's timers and
 * I/O run. Made only when an empty read's error runs no program code (nodeErrorsAreInert): the
 * call's writeSync, which only send() passing that check makes, has just checked it, with no program
 * code run since. An error or the end of the channel is left unread, for the socket to report.
 */
function waitForReply(): void {
  if (waiting) return;
  if (skipWaits > 0) {
    skipWaits--;
    return;
  }
  replyDue = true;
  if (mayHoldLoop(hrtimeBigint())) waitNow();
  else setImmediateNow(waitAfterTurn);
}

function waitAfterTurn(): void {
  // The reply came in the turn's poll phase. Program code ran in the turn: the check is made again.
  if (!replyDue) return;
  if (!nodeErrorsAreInert()) {
    replyDue = false;
    return;
  }
  mayHoldLoop(hrtimeBigint());
  waitNow();
}

/** Waits now; the caller has checked nodeErrorsAreInert with no program code run since. */
function waitNow(): void {
  const bytes = readFor(hrtimeBigint() + SPIN_WAIT_NS);
  replyDue = false;
  if (bytes <= 0) {
    if (bytes === -1) {
      skipWaits = backoff;
      backoff = backoff * 2 + 1 > SPIN_BACKOFF_MAX ? SPIN_BACKOFF_MAX : backoff * 2 + 1;
    }
    return;
  }
  backoff = 0;
  waiting = true;
  try {
    handleRead(bytes, readBuffer);
  } finally {
    waiting = false;
  }
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
  replyDue = false;
  handleRead(bytes, buffer);
}

/** Parses the complete lines of one read of the channel (from the socket or from waitForReply). */
function handleRead(bytes: number, buffer: Buffer): void {
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
