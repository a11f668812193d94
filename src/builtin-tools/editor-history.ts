// What `str_replace_editor undo_edit` reverts to: per file (keyed by its real path, so `a.txt`,
// `./a.txt` and the absolute path share one history), a stack of the contents before each edit this
// tool instance made; `undefined` means the file did not exist (the edit was a create). All stacks
// together hold at most a character budget; the oldest entries are dropped first.

export interface EditorHistoryEntry {
  /** The file's text before the edit; undefined when the edit created the file. */
  readonly previous: string | undefined;
}

interface Stored extends EditorHistoryEntry {
  readonly seq: number;
  readonly size: number;
}

export class EditorHistory {
  readonly #stacks = new Map<string, Stored[]>();
  readonly #maxChars: number;
  #chars = 0;
  #seq = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Remembers the state of `key` before an edit. */
  push(key: string, previous: string | undefined): void {
    const size = previous?.length ?? 0;
    const stack = this.#stacks.get(key) ?? [];
    stack.push({ previous, seq: this.#seq++, size });
    this.#stacks.set(key, stack);
    this.#chars += size;
    while (this.#chars > this.#maxChars) this.#dropOldest();
  }

  /** Takes the latest state of `key` before its last edit, or undefined when none is kept. */
  pop(key: string): EditorHistoryEntry | undefined {
    const stack = this.#stacks.get(key);
    const entry = stack?.pop();
    if (stack !== undefined && stack.length === 0) this.#stacks.delete(key);
    if (entry === undefined) return undefined;
    this.#chars -= entry.size;
    return { previous: entry.previous };
  }

  /** Puts an entry back (an undo that failed to write). */
  restore(key: string, entry: EditorHistoryEntry): void {
    this.push(key, entry.previous);
  }

  #dropOldest(): void {
    let oldestKey: string | undefined;
    let oldestSeq = Infinity;
    for (const [key, stack] of this.#stacks) {
      const first = stack[0];
      if (first !== undefined && first.seq < oldestSeq) {
        oldestSeq = first.seq;
        oldestKey = key;
      }
    }
    if (oldestKey === undefined) {
      this.#chars = 0;
      return;
    }
    const stack = this.#stacks.get(oldestKey) as Stored[];
    const dropped = stack.shift() as Stored;
    if (stack.length === 0) this.#stacks.delete(oldestKey);
    this.#chars -= dropped.size;
  }
}
