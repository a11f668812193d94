// Where the model's streamed text goes in `ptc chat`: on a terminal (and without NO_COLOR) each
// complete markdown block is rendered as it arrives; on a terminal with NO_COLOR the text is written
// as it streams with its control characters escaped; elsewhere (a pipe, a file) byte for byte, so
// it gets the model's own markdown (docs/chat.md, "Markdown").

import type { Writable } from 'node:stream';

import { visibleKeepingLines } from '../terminal-text.js';
import type { MarkdownRenderer } from './markdown-render.js';
import { MarkdownBlocks } from './markdown-stream.js';

export interface AnswerPrinter {
  /** A streamed piece of the answer. */
  text(delta: string): void;
  /** The turn ended: writes what is left, ending with a newline when anything was written. */
  end(): void;
}

/**
 * `mode`: render markdown with renderers from `render` (markdown-render.ts, loaded by the caller
 * when needed), `escape` control characters (a terminal without colour), or `raw`. `width` is
 * asked at each block, so a resized terminal gets lines of its new width.
 */
export function createAnswerPrinter(
  out: Writable,
  mode: { readonly render: (width: number) => MarkdownRenderer } | 'escape' | 'raw',
  width: () => number,
): AnswerPrinter {
  let wrote = false;
  let lastChar = '';
  if (typeof mode === 'string') {
    return {
      text(delta) {
        if (delta === '') return;
        out.write(mode === 'escape' ? visibleKeepingLines(delta) : delta);
        wrote = true;
        lastChar = delta.at(-1) ?? '';
      },
      end() {
        if (wrote && lastChar !== '\n') out.write('\n');
        wrote = false;
        lastChar = '';
      },
    };
  }
  let renderer: { width: number; renderer: MarkdownRenderer } | undefined;
  const blocks = new MarkdownBlocks();
  const emit = (markdown: string) => {
    if (markdown.trim() === '') return;
    const columns = width();
    if (renderer?.width !== columns) renderer = { width: columns, renderer: mode.render(columns) };
    // A blank line between blocks, as the markdown had.
    out.write(`${wrote ? '\n' : ''}${renderer.renderer.render(markdown)}`);
    wrote = true;
  };
  return {
    text(delta) {
      emit(blocks.push(delta));
    },
    end() {
      emit(blocks.end());
      wrote = false;
    },
  };
}
