// Splits a byte stream into LF-terminated lines (LF only: a CR stays part of the line), bounding the
// line length while buffering so an endless partial line fails as soon as it passes the limit.

const LF = 0x0a;

export type DecodeResult =
  | { readonly ok: true; readonly lines: readonly string[] }
  /** `lines` holds the complete lines before the oversize one. */
  | { readonly ok: false; readonly lines: readonly string[]; readonly bytes: number };

export class LineDecoder {
  readonly #maxLineBytes: number;
  readonly #copyPartial: boolean;
  #parts: Buffer[] = [];
  #size = 0;
  #failed = false;

  /**
   * `maxLineBytes` bounds a line's bytes, the LF excluded. `reusedChunks`: the caller reuses a
   * chunk's memory after push() returns (one read buffer, src/ptc-runtime-process/raw-channel.ts), so
   * the bytes of an unfinished line are copied out instead of referenced.
   */
  constructor(maxLineBytes: number, options: { readonly reusedChunks?: boolean } = {}) {
    this.#maxLineBytes = maxLineBytes;
    this.#copyPartial = options.reusedChunks === true;
  }

  /** Feeds a chunk; after an oversize line the decoder stays failed and yields nothing more. */
  push(chunk: Buffer): DecodeResult {
    const lines: string[] = [];
    if (this.#failed) return { ok: false, lines, bytes: this.#size };
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(LF, start);
      const segmentEnd = end === -1 ? chunk.length : end;
      const segmentBytes = segmentEnd - start;
      if (this.#size + segmentBytes > this.#maxLineBytes) {
        this.#failed = true;
        this.#size += segmentBytes;
        this.#parts = [];
        return { ok: false, lines, bytes: this.#size };
      }
      if (end === -1) {
        if (segmentBytes > 0) {
          const part = chunk.subarray(start, segmentEnd);
          this.#parts.push(this.#copyPartial ? Buffer.from(part) : part);
          this.#size += segmentBytes;
        }
        break;
      }
      // UTF-8 is decoded per whole line, so a character split across chunks is never mangled. A line
      // that lies whole in this chunk (the usual case) is decoded from it without a copy.
      if (this.#size === 0) lines.push(chunk.toString('utf8', start, end));
      else {
        this.#parts.push(chunk.subarray(start, end));
        lines.push(Buffer.concat(this.#parts, this.#size + segmentBytes).toString('utf8'));
        this.#parts = [];
        this.#size = 0;
      }
      start = end + 1;
    }
    return { ok: true, lines };
  }

  /** Bytes of the unfinished line currently buffered. */
  get pendingBytes(): number {
    return this.#size;
  }
}
