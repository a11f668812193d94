// What the spawner (spawner.ts) hands back for a launch: a process shaped like the parts of a
// ChildProcess the runtimes use, and the decoding of the raw wait status the helper reports.

import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';

/**
 * A process the spawner started, shaped like the parts of a ChildProcess the runtime uses: `stdio` is
 * `[null, null, stderr, channel]`, and `exit` carries the code or the signal as Node reports them.
 */
export class SpawnedProcess extends EventEmitter {
  readonly pid: number;
  readonly stdio: readonly [null, null, Socket, Socket];
  /** Take and give back one of the spawner's references to the host's event loop. */
  readonly #hold: () => void;
  readonly #release: () => void;
  #ref = true;
  #exited = false;

  constructor(pid: number, stderr: Socket, channel: Socket, hold: () => void, release: () => void) {
    super();
    this.pid = pid;
    this.stdio = [null, null, stderr, channel];
    this.#hold = hold;
    this.#release = release;
  }

  /** Keeps the host alive until the exit is known (as ChildProcess.ref() does). */
  ref(): void {
    if (this.#ref || this.#exited) return;
    this.#ref = true;
    this.#hold();
  }

  unref(): void {
    if (!this.#ref || this.#exited) return;
    this.#ref = false;
    this.#release();
  }

  /** Called by the spawner with the decoded wait status (or SIGKILL when the helper itself died). */
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exited) return;
    if (this.#ref) this.#release();
    this.#exited = true;
    this.emit('exit', code, signal);
  }
}

/** Node's view of a raw wait status: the exit code, or the signal that ended the process. */
export function decodeWaitStatus(status: number): [code: number | null, signal: NodeJS.Signals | null] {
  const signal = status & 0x7f;
  if (signal === 0) return [(status >> 8) & 0xff, null];
  return [null, signalName(signal) ?? null];
}

/** The name Node uses for signal number `number` (9 -> SIGKILL), or undefined for an unknown one. */
export function signalName(number: number): NodeJS.Signals | undefined {
  return (Object.keys(osConstants.signals) as NodeJS.Signals[]).find((key) => osConstants.signals[key] === number);
}
