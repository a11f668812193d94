// What the model sees of a spilled text (docs/sessions.md, "Spill"): the first and the last lines
// within a budget, the whole size, the file, and the `read` call that continues where the head stops.
// Line numbers are those `read` uses, so the offset in the note is the next unseen line.

import { MAX_TOOL_RESULT_CHARS, SPILL_PREVIEW_HEAD_CHARS, SPILL_PREVIEW_TAIL_CHARS, DEFAULT_READ_LIMIT_LINES } from '../limits.js';
import type { ToolCallResult } from './types.js';
import type { SpillRef, SpillStore } from './spill.js';

export interface PreviewBudget {
  readonly headChars?: number;
  readonly tailChars?: number;
}

/** A result whose content was spilled: the preview as content, and the file. */
export interface SpilledResult extends ToolCallResult {
  readonly spill?: SpillRef;
}

/**
 * Spills a direct call's content over `maxChars` (default MAX_TOOL_RESULT_CHARS) to the store and
 * replaces it with a preview; content within the limit comes back unchanged.
 */
export function spillToolResult(result: ToolCallResult, store: SpillStore, callId: string, maxChars: number = MAX_TOOL_RESULT_CHARS): SpilledResult {
  if (result.content.length <= maxChars) return result;
  const ref = store.writeText(callId, result.content);
  return { ...result, content: spillPreview(result.content, ref, store), ...(ref ? { spill: ref } : {}) };
}

/** Head, a note naming the file (or saying why nothing was kept), and tail of `text`. */
export function spillPreview(
  text: string,
  ref: SpillRef | undefined,
  store: Pick<SpillStore, 'maxTotalBytes' | 'usedBytes' | 'dir'>,
  budget: PreviewBudget = {},
): string {
  const lines = splitLines(text);
  const head = takeHead(lines, budget.headChars ?? SPILL_PREVIEW_HEAD_CHARS);
  const tail = takeTail(lines, head.count, budget.tailChars ?? SPILL_PREVIEW_TAIL_CHARS);
  const bytes = Buffer.byteLength(text, 'utf8');
  const size = `${bytes} bytes in ${lines.length} line${lines.length === 1 ? '' : 's'}`;
  let note: string;
  if (ref === undefined) {
    const why =
      store.usedBytes + bytes > store.maxTotalBytes
        ? `this session's spill budget (${store.maxTotalBytes} bytes) is used up`
        : `it could not be written to ${store.dir}`;
    note =
      `[Output cut: the whole text has ${size}, and the middle was dropped because ${why}. ` +
      'Ask for less output (filter it, or write it to a workspace file and read that in parts).]';
  } else {
    const shown =
      tail.count > 0
        ? `Shown: ${head.label} above and lines ${lines.length - tail.count + 1}-${lines.length} below.`
        : `Shown: ${head.label} above.`;
    const cut = ref.bytes < ref.totalBytes ? ` The file holds its first ${ref.bytes} bytes (the spill limits).` : '';
    const next = head.partial ? head.count : head.count + 1;
    const call = JSON.stringify({ path: ref.path, offset: Math.max(1, next), limit: DEFAULT_READ_LIMIT_LINES });
    note =
      `[Output spilled: the whole text has ${size} and is saved in ${ref.path}.${cut} ${shown} ` +
      `Read the rest with read ${call} (in a program: await tools.read(${call})), continuing with the offset it names.]`;
  }
  const parts = [head.text, note];
  if (tail.count > 0) parts.push(tail.text);
  return parts.join('\n');
}

interface Head {
  readonly text: string;
  /** Lines shown, the last possibly in part. */
  readonly count: number;
  readonly partial: boolean;
  readonly label: string;
}

function takeHead(lines: readonly string[], budget: number): Head {
  let chars = 0;
  let count = 0;
  while (count < lines.length && chars + lines[count]!.length + 1 <= budget) chars += lines[count++]!.length + 1;
  if (count > 0) return { text: lines.slice(0, count).join('\n'), count, partial: false, label: count === 1 ? 'line 1' : `lines 1-${count}` };
  // One line longer than the budget: its start.
  const first = lines[0] ?? '';
  return { text: `${first.slice(0, budget)} [… line 1 continues]`, count: 1, partial: true, label: 'the start of line 1' };
}

function takeTail(lines: readonly string[], headCount: number, budget: number): { text: string; count: number } {
  let chars = 0;
  let count = 0;
  while (lines.length - count - 1 >= headCount && chars + lines[lines.length - count - 1]!.length + 1 <= budget) {
    chars += lines[lines.length - count - 1]!.length + 1;
    count++;
  }
  return { text: lines.slice(lines.length - count).join('\n'), count };
}

/** Lines as `read` numbers them: a final newline does not start an extra line; `\r` before `\n` is dropped. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
