// The model's streamed text, cut into complete markdown blocks as it arrives, so each block is
// rendered once it is whole and the answer still appears as it streams (docs/chat.md, "Markdown").
// A block ends at a blank line outside a code fence; the cut is made only when the next line is
// neither indented nor a list item, so a list with blank lines between items (and an item's
// continuation) stays one block and keeps its numbering.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CONTINUES = /^(?:\s|[-*+] |\d+[.)] |>)/;
/** The start of a line that may still become a list item (`-`, `12`, `3.`). */
const MAY_BE_LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)]?)$/;

export class MarkdownBlocks {
  private pending = '';
  /** Offset in `pending` of the first line not scanned yet. */
  private scanned = 0;
  private fence: string | undefined;
  /** Offset just past a blank line that may end a block (confirmed by the next non-blank line). */
  private candidate: number | undefined;

  /** Adds streamed text; returns the markdown of the blocks it completed ('' when none). */
  push(delta: string): string {
    this.pending += delta;
    let cut = 0;
    for (;;) {
      const end = this.pending.indexOf('\n', this.scanned);
      if (end < 0) break;
      const line = this.pending.slice(this.scanned, end);
      const next = end + 1;
      const fence = FENCE.exec(line)?.[1];
      if (this.fence !== undefined) {
        if (fence !== undefined && fence[0] === this.fence[0] && fence.length >= this.fence.length && line.trim() === fence) this.fence = undefined;
      } else if (line.trim() === '') {
        this.candidate ??= next;
      } else {
        if (this.candidate !== undefined && !CONTINUES.test(line)) cut = this.candidate;
        this.candidate = undefined;
        if (fence !== undefined) this.fence = fence;
      }
      this.scanned = next;
    }
    // The line being streamed may already show it starts a new block (`Hel…` after a blank line).
    const partial = this.pending.slice(this.scanned);
    if (this.fence === undefined && this.candidate !== undefined && partial.trim() !== '' && !CONTINUES.test(partial) && !MAY_BE_LIST_ITEM.test(partial)) {
      cut = this.candidate;
      this.candidate = undefined;
    }
    if (cut === 0) return '';
    const done = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    this.scanned -= cut;
    if (this.candidate !== undefined) this.candidate -= cut;
    return done;
  }

  /** Everything not returned yet (the end of the answer). */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    this.scanned = 0;
    this.fence = undefined;
    this.candidate = undefined;
    return rest;
  }
}
