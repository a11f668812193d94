// Catching a program's next frame without sleeping (docs/control-channel.md, "Waiting without
// sleeping"): right after the host answered every call a program had in flight, the next thing
// on the channel is usually that program's next call (or its `done`), a few microseconds away. A
// process that sleeps in epoll for it pays a wake-up per frame, most of a sequential call's time on
// this machine (a halted vCPU woken by the other side's write); reading the socket without blocking
// for a short while instead takes the frame the moment it lands. What is read goes through the same
// decoder, checks and limits as a read from the event loop; only the wait differs.
//
// Two bounds keep it a bet that costs little when it loses. A wait is short (SPIN_WAIT_NS), and
// misses in a row make the next waits rarer: none is skipped after the first, then 1, 3, 7, ... up
// to SPIN_BACKOFF_MAX, and a catch starts over. A lone slow call (a GC, a preemption) costs nothing
// more; a program that works between its calls soon costs the host one wait per SPIN_BACKOFF_MAX.
// And the event loop is never held for longer than SPIN_STREAK_NS in a row: then the wait is made
// after one turn of the loop (timers, other channels and signals run first).

import { readSync } from 'node:fs';
import { SPIN_BACKOFF_MAX, SPIN_STREAK_NS, SPIN_WAIT_NS } from './limits.js';

const hrtime = process.hrtime.bigint;

/** When the current streak of waits began, and whether the event loop has turned since. */
let streakStart = 0n;
let loopTurned = true;
const markTurned = (): void => {
  loopTurned = true;
};

/** Whether the event loop may be held now: a streak starts when it has turned since the last one. */
function mayHoldLoop(now: bigint): boolean {
  if (loopTurned) {
    loopTurned = false;
    streakStart = now;
    // Runs in the check phase, after the poll phase has handled I/O: the loop has turned.
    setImmediate(markTurned);
    return true;
  }
  return now - streakStart < SPIN_STREAK_NS;
}

/**
 * Reads `fd` (non-blocking) into `buffer` until a read returns or `end` passes: the bytes read, 0 at
 * the end of the channel, -1 when nothing came or the read failed otherwise. Each empty read is an
 * EAGAIN error that Node throws; without a stack to capture it costs about 40% less here, so the
 * limit is 0 for the loop, which runs no other code (Error.stackTraceLimit is the host's own).
 */
function readFor(fd: number, buffer: Buffer, end: bigint): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    do {
      try {
        return readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return -1;
      }
    } while (hrtime() < end);
    return -1;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** One channel's waits for the next frame. */
export class SpinWait {
  readonly #fd: () => number | undefined;
  readonly #buffer: Buffer;
  readonly #onRead: (bytes: number) => void;
  /** Whether a wait is due: set by replied(), cleared by a wait's read and by cancel(). */
  #due = false;
  /** Waits to skip before the next one, and how many the next miss skips. */
  #skip = 0;
  #backoff = 0;
  /** Set while a frame read by a wait is handled: a wait from inside it would nest. */
  #busy = false;

  /**
   * Reads of the channel land in `buffer` and go to `onRead(bytes)`, as the socket's own reads do.
   * `fd` gives the socket's descriptor now, undefined once it is closed: read at each wait, since a
   * closed descriptor's number is soon another file's.
   */
  constructor(fd: () => number | undefined, buffer: Buffer, onRead: (bytes: number) => void) {
    this.#fd = fd;
    this.#buffer = buffer;
    this.#onRead = onRead;
  }

  /**
   * No wait is due any more: a read came through the event loop, or the channel is handed back or
   * gone. A wait put off to after the loop's turn is dropped.
   */
  cancel(): void {
    this.#due = false;
  }

  /**
   * Everything in flight was answered: waits a short while for the next read (now, or after one turn
   * of the event loop when it has been held long enough) and hands it to onRead. Leaves an error or
   * the end of the channel unread, for the socket's stream to see.
   */
  replied(): void {
    if (this.#busy) return;
    if (this.#skip > 0) {
      this.#skip--;
      return;
    }
    this.#due = true;
    if (mayHoldLoop(hrtime())) this.#wait();
    else setImmediate(this.#waitAfterTurn);
  }

  readonly #waitAfterTurn = (): void => {
    // The frame came in the turn's poll phase, or the channel was handed back meanwhile.
    if (!this.#due) return;
    mayHoldLoop(hrtime());
    this.#wait();
  };

  #wait(): void {
    this.#due = false;
    const fd = this.#fd();
    if (fd === undefined) return;
    const bytes = readFor(fd, this.#buffer, hrtime() + SPIN_WAIT_NS);
    if (bytes <= 0) {
      // Nothing came (or the channel ended, which the stream reports): skip more waits each time.
      if (bytes === -1) {
        this.#skip = this.#backoff;
        this.#backoff = Math.min(this.#backoff * 2 + 1, SPIN_BACKOFF_MAX);
      }
      return;
    }
    this.#backoff = 0;
    this.#busy = true;
    try {
      this.#onRead(bytes);
    } finally {
      this.#busy = false;
    }
  }
}
