// Following a session log that another process writes (`ptc run` in a terminal while the page shows
// that session): the complete lines so far, then each complete line as it is appended (docs/ui.md,
// "Sessions run elsewhere"). Only whole lines are parsed: a line still being written waits for its LF.

import fs from 'node:fs';

import { parseSessionLog, type SessionEvent } from '../session/index.js';
import { LOG_FOLLOW_POLL_MS } from './limits.js';


export interface FollowedLog {
  /** The events of the complete lines read so far. */
  readonly events: SessionEvent[];
  stop(): void;
}

/**
 * Reads `file`'s complete lines, then polls it; `onEvent` gets each later event with its index in
 * `events`. Stops by itself after a `session/end` line appended while following (the turn is over;
 * a later turn is another process's own).
 */
export function followLog(file: string, onEvent: (index: number, event: SessionEvent) => void): FollowedLog {
  const events: SessionEvent[] = [];
  let offset = 0;
  let stopped = false;
  const readMore = (): void => {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      const size = fs.fstatSync(fd).size;
      if (size <= offset) return;
      const chunk = Buffer.alloc(size - offset);
      const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
      const complete = chunk.subarray(0, chunk.lastIndexOf(0x0a, read - 1) + 1);
      if (complete.length === 0) return;
      offset += complete.length;
      for (const event of parseSessionLog(complete).events) {
        const index = events.push(event) - 1;
        if (!started) continue;
        onEvent(index, event);
        if (event.type === 'session/end') stop();
      }
    } catch {
      // The file vanished or cannot be read: nothing more to follow.
      stop();
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };
  const listener = () => {
    if (!stopped) readMore();
  };
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    fs.unwatchFile(file, listener);
  };
  let started = false;
  readMore();
  started = true;
  if (!stopped) fs.watchFile(file, { interval: LOG_FOLLOW_POLL_MS, persistent: false }, listener);
  return { events, stop };
}
