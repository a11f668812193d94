// Where the model's streamed text goes in `ptc chat`: on a terminal (and without NO_COLOR) each
// complete markdown block is rendered as it arrives; otherwise the text is written as it streams,
// byte for byte, so a pipe or a log gets the model's own markdown (docs/chat.md, "Markdown").

import type { Writable } from 'node:stream';

import { createMarkdownRenderer } from './markdown-render.js';
import { MarkdownBlocks } from './markdown-stream.js';

export interface AnswerPrinter {
  /** A streamed piece of the answer. */
  text(delta: string): void;
  /** The turn ended: writes what is left, ending with a newline when anything was written. */
  end(): void;
}

export function createAnswerPrinter(out: Writable, render: boolean, width: number): AnswerPrinter {
  let wrote = false;
  let lastChar = '';
  if (!render) {
    return {
      text(delta) {
        if (delta === '') return;
        out.write(delta);
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
  const renderer = createMarkdownRenderer(width);
  const blocks = new MarkdownBlocks();
  const emit = (markdown: string) => {
    if (markdown.trim() === '') return;
    // A blank line between blocks, as the markdown had.
    out.write(`${wrote ? '\n' : ''}${renderer.render(markdown)}`);
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
