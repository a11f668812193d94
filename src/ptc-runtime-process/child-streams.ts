// The streams of one program child (docs/control-channel.md): the control channel on fd 3 read as
// NDJSON lines within the frame limit (each read into one reused buffer, raw-channel.ts) and written
// to with a byte count of what is still unread, the tail of stderr kept for messages, and stdout
// drained unread.

import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { encodeFrame, type HostFrame } from './frames.js';
import { LineDecoder } from './line-decoder.js';
import { readIntoBuffer, socketFd, writeNow } from './raw-channel.js';
import { SpinWait } from './spin-wait.js';
import { READ_BUFFER_BYTES } from './limits.js';

export interface ChildStreamEvents {
  /** One complete line from the channel. */
  line(line: string): void;
  /** A line went past the frame limit (`bytes` of it so far), or handling a line threw. */
  bad(reason: string): void;
  /** The channel ended or closed (once). */
  end(): void;
}

/** [stdin, stdout, stderr, channel] as launch() gives them for a program stdio launch. */
export type ChildStdio = readonly [unknown, Readable | null, Readable, Socket];

export class ChildStreams {
  readonly #channel: Socket;
  readonly #decoder: LineDecoder;
  readonly #maxFrameBytes: number;
  readonly #events: ChildStreamEvents;
  /** Waits for the next frame without sleeping (spin-wait.ts); only on the raw path. */
  readonly #spin: SpinWait | undefined;
  #stderrTail = '';
  #ended = false;

  constructor(stdio: ChildStdio, limits: { readonly maxFrameBytes: number; readonly maxStdioBytes: number }, events: ChildStreamEvents) {
    const [, stdout, stderr, channel] = stdio;
    this.#channel = channel;
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    // Each read straight into one buffer (docs/control-channel.md, "Hot path"); where this Node does
    // not allow it, `data` events as before. The decoder copies an unfinished line out of the buffer.
    const raw = readIntoBuffer(channel, buffer, (bytes) => {
      this.#spin?.cancel();
      this.#onData(buffer.subarray(0, bytes));
    });
    const fd = () => (channel.destroyed ? undefined : socketFd(channel));
    this.#spin = raw && fd() !== undefined ? new SpinWait(fd, buffer, (bytes) => this.#onData(buffer.subarray(0, bytes))) : undefined;
    this.#decoder = new LineDecoder(limits.maxFrameBytes, { reusedChunks: raw });
    this.#maxFrameBytes = limits.maxFrameBytes;
    this.#events = events;
    for (const stream of [stdout, stderr, channel]) stream?.on('error', () => undefined);
    // The real stdout is not part of the result (the program's output is captured over fd 3); drain
    // it so a program (or a process it starts) writing to fd 1 directly never blocks. (Through the
    // spawner it is /dev/null.)
    stdout?.resume();
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-limits.maxStdioBytes);
    });
    channel.on('end', () => this.#onEnd());
    channel.on('close', () => this.#onEnd());
    if (raw) {
      // Bytes read before the handover (the spawner's header read, docs/sandbox.md "The spawner")
      // wait in the stream's buffer: they come first.
      for (let chunk = channel.read() as Buffer | null; chunk !== null; chunk = channel.read() as Buffer | null) this.#onData(chunk);
    } else {
      channel.on('data', (chunk: Buffer) => this.#onData(chunk));
    }
    // launch() hands both over paused, so nothing was emitted before these listeners.
    stderr.resume();
    channel.resume();
  }

  /** The last bytes the child wrote to stderr (up to maxStdioBytes). */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** True once the channel was destroyed (nothing can be written to it). */
  get destroyed(): boolean {
    return this.#channel.destroyed;
  }

  /** True once the channel ended or closed. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Writes one frame (`encoded` is its line when the caller already has it) and returns the bytes now
   * queued on the channel that the child has not read yet.
   */
  send(frame: HostFrame, encoded?: string): number {
    return writeNow(this.#channel, encoded ?? encodeFrame(frame));
  }

  /**
   * The host answered every call in flight: waits a short while, without sleeping, for the child's
   * next frame (spin-wait.ts), which then goes through the same path as any read.
   */
  replied(): void {
    if (!this.#ended && !this.#channel.destroyed) this.#spin?.replied();
  }

  /** The run is over: a wait it left scheduled is dropped (ChildStreams.replied). */
  cancelWait(): void {
    this.#spin?.cancel();
  }

  #onData(chunk: Buffer): void {
    // Total by construction (docs/control-channel.md): whatever a frame makes the host's handlers
    // throw ends this run as PROTOCOL instead of escaping into the socket's event handler.
    try {
      const decoded = this.#decoder.push(chunk);
      for (const line of decoded.lines) this.#events.line(line);
      if (!decoded.ok) {
        this.#events.bad(`a control frame exceeded ${this.#maxFrameBytes} bytes (${decoded.bytes} bytes and counting)`);
      }
    } catch (error) {
      this.#events.bad(`the host could not handle a control frame: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #onEnd(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#spin?.cancel();
    this.#events.end();
  }
}
