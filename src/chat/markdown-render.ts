// Markdown of the model rendered for a terminal: headings, emphasis, lists, tables, links and code
// blocks with syntax highlighting, by `marked` with the `marked-terminal` renderer (docs/chat.md,
// "Markdown"). Control characters are dropped from the model's text before it is parsed (the
// renderer drops them too), and bidi controls shown as escapes, so the text cannot send escape
// sequences of its own or reorder what is shown (docs/security.md, "Approval edges").

import { highlight } from 'cli-highlight';
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { codeTheme, markdownStyles } from './markdown-styles.js';

export interface MarkdownRenderer {
  /** The terminal text of one or more complete markdown blocks, ending in exactly one newline. */
  render(markdown: string): string;
}

/** A renderer for a terminal `width` columns wide. */
export function createMarkdownRenderer(width: number): MarkdownRenderer {
  const marked = new Marked({ async: false, gfm: true });
  const tab = '  ';
  marked.use(markedTerminal({ ...markdownStyles, width: Math.max(20, width), reflowText: true, tab: tab.length, emoji: false }));
  // Code blocks highlighted here rather than by the renderer, which skips highlighting whenever its
  // colour library found no colour in the environment (markdown-styles.ts says why that is not ours).
  marked.use({
    renderer: {
      code({ text, lang }) {
        return `${tab}${highlightCode(sanitize(text), lang).split('\n').join(`\n${tab}`)}\n\n`;
      },
    },
  });
  return {
    render(markdown) {
      const out = marked.parse(sanitize(markdown), { async: false });
      return `${out.replace(/\n+$/, '')}\n`;
    },
  };
}

/** `code` coloured by token for `lang`, or in the code colour when the language is unknown. */
function highlightCode(code: string, lang: string | undefined): string {
  try {
    return highlight(code, { language: lang || undefined, ignoreIllegals: true, theme: codeTheme });
  } catch {
    return markdownStyles.code(code);
  }
}

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The model's markdown without C0/C1 controls (line breaks and tabs kept), bidi controls as `\u` escapes. */
export function sanitize(markdown: string): string {
  return markdown
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, '')
    .replace(BIDI, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
