// web_browsing: a text browser over the benchmark's local pages (data/m3tooleval/web_pages.jsonl),
// five lines per view, with a history for going back (docs/eval.md, "Tools"). One browser per
// task run: the plugin creates a fresh one each time it is applied.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../../errors.js';
import { py } from '../py-value.js';
import { dataDir } from '../tasks.js';
import { pyTool } from '../tool-kit.js';
import { calculatorTool } from './trade-calculator.js';

export interface WebPage {
  readonly name: string;
  readonly content: string;
}

const LINES_PER_VIEW = 5;
const RULE = '-'.repeat(10);

let pages: readonly WebPage[] | undefined;

export function loadPages(): readonly WebPage[] {
  if (pages) return pages;
  const file = path.join(dataDir(), 'web_pages.jsonl');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`The M3ToolEval pages are missing: ${file} cannot be read. Reinstall ptc-harness (the package ships data/m3tooleval).`);
  }
  // Python's str.splitlines() on the file; each line is one JSON page.
  pages = text.split(/\r\n|\n|\r/).filter((line) => line !== '').map((line) => JSON.parse(line) as WebPage);
  return pages;
}

/** The browser state of one task run, with the original's behaviour and texts. */
export class WebBrowser {
  private readonly byName: Map<string, WebPage>;
  private current: WebPage | undefined;
  private history: (WebPage | undefined)[] = [];
  private lines: string[] = [];
  private scroll = 0;

  constructor(pages: readonly WebPage[], start = '/') {
    this.byName = new Map(pages.map((p) => [p.name, p]));
    this.open(start);
    this.history = [];
  }

  private open(name: string): string {
    const page = this.byName.get(name);
    if (!page) return '[Page not found.]';
    this.history.push(this.current);
    this.current = page;
    this.lines = page.content.split('\n');
    this.scroll = 0;
    return `[Opened page: ${name}]\n${this.view()}`;
  }

  clickUrl(url: string): string {
    const clean = url.replaceAll("'", '');
    if (this.current && this.byName.has(clean)) return this.open(clean);
    return '[URL not found.]';
  }

  goToPreviousPage(): string {
    if (this.history.length === 0) return '[No previous page.]';
    const previous = this.history.pop();
    // The original pops whatever was pushed, including the empty page before the start page was
    // opened; it then fails reading it. That history entry is cleared at start, so it never happens.
    this.current = previous;
    this.lines = previous ? previous.content.split('\n') : [];
    this.scroll = 0;
    return `[Opened page: ${previous?.name ?? ''}]\n${this.view()}`;
  }

  scrollDown(): string {
    if (this.scroll + LINES_PER_VIEW < this.lines.length) {
      this.scroll += LINES_PER_VIEW;
      return this.view();
    }
    return '[Reached the bottom of the page.]\n';
  }

  scrollUp(): string {
    if (this.scroll > 0) {
      this.scroll -= LINES_PER_VIEW;
      return this.view();
    }
    return '[Reached the top of the page.]\n';
  }

  view(): string {
    const total = this.lines.length;
    const name = this.current?.name ? `[Web Page Name: ${this.current.name}]\n` : '';
    // As the original counts: 10 lines make "page x of 3".
    const pageId = total > LINES_PER_VIEW ? Math.floor(this.scroll / LINES_PER_VIEW) + 1 : 1;
    const pageCount = total > LINES_PER_VIEW ? Math.floor(total / LINES_PER_VIEW) + 1 : 1;
    const shown = this.lines.slice(this.scroll, this.scroll + LINES_PER_VIEW).join('\n');
    return `${RULE}\n${name}[Viewing page ${pageId} of ${pageCount}]\n\n${shown}\n${RULE}`;
  }
}

export function webBrowsingTools(browser: WebBrowser = new WebBrowser(loadPages())) {
  const none = z.object({});
  return [
    pyTool({
      name: 'click_url',
      description:
        "Clicks on a URL. A clickable URL looks like [Clickable '<url_argument>'] in the webpage.\n" +
        'Arguments: url (str).\n' +
        'Returns the rendered content of the webpage after clicking the URL showing on the current rendered page.\n',
      input: z.object({ url: z.string() }),
      output: z.string(),
      examples: [{ url: '/about' }],
      positional: (a) => [py.str(a.url)],
      run: (a) => py.str(browser.clickUrl(a.url)),
    }),
    pyTool({
      name: 'go_to_previous_page',
      description: 'Goes back to the previous page. It has no arguments.\nAfter going back to the previous page, return the rendered content of the webpage.',
      input: none,
      output: z.string(),
      positional: () => [],
      run: () => py.str(browser.goToPreviousPage()),
    }),
    pyTool({
      name: 'scroll_down',
      description: 'Scrolls down the view. It has no arguments.\nReturns the rendered content of the webpage after scrolling down.',
      input: none,
      output: z.string(),
      positional: () => [],
      run: () => py.str(browser.scrollDown()),
    }),
    pyTool({
      name: 'scroll_up',
      description: 'Scrolls up the view. It has no arguments.\nReturns the rendered content of the webpage after scrolling up.',
      input: none,
      output: z.string(),
      positional: () => [],
      run: () => py.str(browser.scrollUp()),
    }),
    pyTool({
      name: 'view',
      description:
        'Return the current view in string format of the rendered webpage. It has no arguments.\n' +
        'Returns the rendered content of the webpage.\n' +
        'You should call this when you want to see the rendered content of the current webpage.',
      input: none,
      output: z.string(),
      positional: () => [],
      run: () => py.str(browser.view()),
    }),
    calculatorTool(),
  ];
}
