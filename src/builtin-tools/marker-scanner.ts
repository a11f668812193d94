// Splits one output stream of a persistent-shell call at the call's end marker `\n<nonce> <status>\n`
// (docs/minimal-tools.md, "The marker protocol"). Bytes that may be the start of the marker are held
// back until the next chunk decides; bytes after the marker (a background job of the call still
// writing) belong to no call and are dropped.

import { BoundedOutput } from './bounded-output.js';

/** Longest status text after a marker (`255`), plus slack for a stray space. */
const MAX_STATUS_CHARS = 8;

export class MarkerScanner {
  onMarker: (() => void) | undefined;
  readonly output: BoundedOutput;
  readonly #marker: Buffer;
  #held: Buffer = Buffer.alloc(0);
  #done = false;
  #status: number | undefined;

  constructor(nonce: string, maxBytes: number) {
    this.#marker = Buffer.from(`\n${nonce} `);
    this.output = new BoundedOutput(maxBytes);
  }

  get done(): boolean {
    return this.#done;
  }

  get status(): number | undefined {
    return this.#status;
  }

  /** Ends a call without a marker: held bytes were output after all. */
  flush(): void {
    if (!this.#done && this.#held.length > 0) this.output.push(this.#held);
    this.#held = Buffer.alloc(0);
  }

  push(chunk: Buffer): void {
    if (this.#done) return;
    const marker = this.#marker;
    const data = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    this.#held = Buffer.alloc(0);
    const at = data.indexOf(marker);
    if (at === -1) {
      const keep = Math.min(marker.length - 1, data.length);
      this.output.push(data.subarray(0, data.length - keep));
      this.#held = Buffer.from(data.subarray(data.length - keep));
      return;
    }
    this.output.push(data.subarray(0, at));
    const statusStart = at + marker.length;
    const lineEnd = data.indexOf(0x0a, statusStart);
    if (lineEnd === -1) {
      if (data.length - statusStart > MAX_STATUS_CHARS) {
        // Not our marker after all (ours ends within a few digits): it is output.
        this.output.push(data.subarray(at, at + 1));
        this.push(data.subarray(at + 1));
        return;
      }
      this.#held = Buffer.from(data.subarray(at));
      return;
    }
    const statusText = data.subarray(statusStart, lineEnd).toString('latin1');
    if (!/^\d{1,3}$/.test(statusText)) {
      this.output.push(data.subarray(at, at + 1));
      this.push(data.subarray(at + 1));
      return;
    }
    this.#status = Number(statusText);
    this.#done = true;
    this.onMarker?.();
  }
}
