// Markdown of the model rendered for a terminal: headings, emphasis, lists, tables, links and code
// blocks with syntax highlighting, by `marked` with the `marked-terminal` renderer (docs/chat.md,
// "Markdown"). The renderer drops control characters from the model's text, so the text cannot
// send escape sequences of its own.

import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

export interface MarkdownRenderer {
  /** The terminal text of one or more complete markdown blocks, ending in exactly one newline. */
  render(markdown: string): string;
}

/** A renderer for a terminal `width` columns wide. */
export function createMarkdownRenderer(width: number): MarkdownRenderer {
  const marked = new Marked({ async: false, gfm: true });
  marked.use(markedTerminal({ width: Math.max(20, width), reflowText: true, tab: 2, emoji: false }));
  return {
    render(markdown) {
      const out = marked.parse(markdown, { async: false });
      return `${out.replace(/\n+$/, '')}\n`;
    },
  };
}
