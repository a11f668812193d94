// Output capture with a byte budget, shared by the one-shot and the persistent `bash`: the first and
// the last half of the budget are kept and what fell in between is counted, so a flood costs constant
// memory while the model still sees how a command started and how it ended.

/** Keeps the first and the last half of a byte budget and counts what fell in between. */
export class BoundedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private omitted = 0;

  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get truncated(): boolean {
    return this.omitted > 0;
  }

  push(chunk: Buffer): void {
    const headRoom = Math.ceil(this.maxBytes / 2) - this.headBytes;
    if (headRoom > 0) {
      const taken = chunk.subarray(0, headRoom);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    const tailMax = Math.floor(this.maxBytes / 2);
    const joined = Buffer.concat([this.tail, chunk]);
    const excess = Math.max(0, joined.length - tailMax);
    this.omitted += excess;
    this.tail = Buffer.from(joined.subarray(excess));
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.omitted === 0) return head + this.tail.toString('utf8');
    return `${head}\n[... ${this.omitted} bytes omitted ...]\n${this.tail.toString('utf8')}`;
  }
}
