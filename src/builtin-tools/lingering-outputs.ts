// The output pipes of the persistent shell's past calls (docs/minimal-tools.md, "Private channels"):
// after a call they lose their names and the host's hold on them goes, so each ends when the last
// background job holding it closes it. Until then what they carry is read and dropped, for at most
// MAX_BASH_LINGERING_OUTPUTS of them; past that the oldest is closed and its writers get EPIPE.

import type { Readable } from 'node:stream';
import type { OutputFifo } from './shell-channels.js';
import { MAX_BASH_LINGERING_OUTPUTS } from './shell-limits.js';

/** The host's ends of one call's output pipes. */
export interface CallOutput {
  readonly paths: readonly string[];
  readonly fifos: readonly OutputFifo[];
}

/** The pipes of ended calls that background jobs still hold, oldest first. */
export class LingeringOutputs {
  readonly #fifos: OutputFifo[] = [];

  /** After a call: `unlink` removes each pipe's name; when the session has `ended`, the pipes are closed at once. */
  retire(output: CallOutput, unlink: (path: string) => void, ended: boolean): void {
    for (const path of output.paths) unlink(path);
    for (const fifo of output.fifos) {
      fifo.stream.removeAllListeners('data');
      fifo.release();
      if (ended) fifo.stream.destroy();
      if (fifo.stream.destroyed || fifo.stream.readableEnded) continue;
      fifo.stream.on('data', () => undefined);
      fifo.stream.once('close', () => {
        const at = this.#fifos.indexOf(fifo);
        if (at !== -1) this.#fifos.splice(at, 1);
      });
      this.#fifos.push(fifo);
      (fifo.stream as Readable & { unref?: () => void }).unref?.();
    }
    while (this.#fifos.length > MAX_BASH_LINGERING_OUTPUTS) this.#fifos.shift()?.stream.destroy();
  }

  /** Closes every lingering pipe (the session is over). */
  destroyAll(): void {
    for (const fifo of this.#fifos.splice(0)) fifo.stream.destroy();
  }
}
