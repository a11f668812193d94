// The replies of one run to its program's binding calls: each encoded (within the channel's frame
// limit) and batched, so the replies ready in one turn of the event loop go out in one write, with
// the bytes the child has not read yet bounded per run (docs/control-channel.md, "Hot path").

import { MAX_QUEUED_REPLY_BYTES } from '../limits.js';
import { encodeFrame, encodeValueResult, type HostFrame, type ResultFrame } from './frames.js';
import { describeError } from './session-texts.js';
import { REPLY_BATCH_BYTES } from './limits.js';

/** Where the replies go: the child's channel (ProcessChild.send). */
export interface ReplyChannel {
  /** Writes `encoded` (the lines of frames ending with `frame`); returns the bytes queued unread. */
  send(frame: HostFrame, encoded?: string): number;
}

export interface ReplyQueueEvents {
  /** More than MAX_QUEUED_REPLY_BYTES sit unread on the channel after a write. */
  readonly stalled: (queued: number) => void;
  /** A write from the scheduled flush threw. */
  readonly failed: (error: unknown) => void;
  /** A batch was written (and nothing is queued behind it). */
  readonly flushed: () => void;
}

export class ReplyQueue {
  readonly #channel: ReplyChannel;
  readonly #maxFrameBytes: number;
  readonly #events: ReplyQueueEvents;
  /** Reply lines not yet written: the replies of one turn of the event loop go out in one write. */
  #outgoing: string[] = [];
  #outgoingBytes = 0;
  #lastOutgoing: ResultFrame | undefined;
  #flushScheduled = false;
  #closed = false;

  constructor(channel: ReplyChannel, maxFrameBytes: number, events: ReplyQueueEvents) {
    this.#channel = channel;
    this.#maxFrameBytes = maxFrameBytes;
    this.#events = events;
  }

  /** Queues a failed call's reply. */
  error(id: number, message: string, code?: string): void {
    this.result({ type: 'result', id, ok: false, error: { message, ...(code === undefined ? {} : { code }) } });
  }

  /** Queues one reply; one that cannot be serialised or is too large becomes an error reply. */
  result(frame: ResultFrame): void {
    let line: string;
    try {
      // A value's line is built around its own JSON, without serialising the frame object around it.
      line = frame.ok && frame.value !== undefined ? encodeValueResult(frame.id, JSON.stringify(frame.value)) : encodeFrame(frame);
    } catch (error) {
      this.error(frame.id, `the result could not be serialised: ${describeError(error)}`);
      return;
    }
    this.#queue(frame, line);
  }

  /** The run settled: what is queued is dropped and nothing more is written. */
  close(): void {
    this.#closed = true;
    this.#outgoing = [];
  }

  /** Queues a reply's line (`frame` encoded) for the next write, within the channel's frame limit. */
  #queue(frame: ResultFrame, line: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    if (bytes > this.#maxFrameBytes) {
      this.error(frame.id, `the result is ${bytes} bytes, more than the ${this.#maxFrameBytes}-byte channel limit; ask for less (a range, a filter)`);
      return;
    }
    this.#outgoing.push(line);
    this.#outgoingBytes += bytes;
    this.#lastOutgoing = frame;
    // Replies batch up only to a small size, so the bound on queued bytes below is checked as often
    // as it was with one write per reply.
    if (this.#outgoingBytes >= REPLY_BATCH_BYTES) {
      this.#flush();
      return;
    }
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // Queued from a binding's settlement (a microtask), the tick runs once every reply that is
      // ready in this turn has been queued (docs/control-channel.md, "Hot path").
      process.nextTick(this.#flushTick);
    }
  }

  readonly #flushTick = (): void => {
    try {
      this.#flush();
    } catch (error) {
      this.#events.failed(error);
    }
  };

  #flush(): void {
    this.#flushScheduled = false;
    const frame = this.#lastOutgoing;
    if (this.#closed || frame === undefined || this.#outgoing.length === 0) return;
    const text = this.#outgoing.length === 1 ? (this.#outgoing[0] as string) : this.#outgoing.join('');
    this.#outgoing = [];
    this.#outgoingBytes = 0;
    this.#lastOutgoing = undefined;
    const queued = this.#channel.send(frame, text);
    if (queued > MAX_QUEUED_REPLY_BYTES) this.#events.stalled(queued);
    else if (queued === 0) this.#events.flushed();
  }
}
