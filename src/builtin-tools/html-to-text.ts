// HTML -> readable markdown-ish text for `web_fetch` (docs/web-tools.md): headings, paragraphs, links
// as [text](href), lists, code blocks, simple tables; scripts, styles and other non-content dropped.
// The page is parsed by html-parse.ts into a tree of bounded depth; this file renders the tree.

import { LINE_BLOCKS, parseHtml, type ElementNode, type HtmlNode } from './html-parse.js';
import { MAX_HTML_STRUCTURE_NESTING } from './limits.js';

/** Not content for a reader: dropped with everything inside. */
const DROPPED_ELEMENTS = new Set([
  'head', 'title', 'script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas',
  'audio', 'video', 'select', 'datalist', 'button', 'input', 'textarea', 'noembed', 'noframes',
]);
/** Blocks separated by a blank line. */
const PARAGRAPH_BLOCKS = new Set(['p', 'dd']);
/** Marks one column of indentation through whitespace normalisation. */
const INDENT = '\u0001';
/** Brackets the index of a preformatted block kept aside until the end. */
const PRE_MARK = '\u0002';

/** Converts an HTML document to markdown-ish text; `baseUrl` resolves relative links and images. */
export function htmlToText(html: string, baseUrl?: string): string {
  const root = parseHtml(html);
  const state: RenderState = { base: parseBase(baseUrl), pres: [], sawH1: false, nesting: 0 };
  const title = oneLine(textContent(findFirst(root, 'title')));
  const body = tidy(renderChildren(root, state))
    .replaceAll(INDENT, ' ')
    .replace(new RegExp(`${PRE_MARK}(\\d+)${PRE_MARK}`, 'g'), (_, i: string) => state.pres[Number(i)] ?? '');
  return title !== '' && !state.sawH1 ? `# ${title}\n\n${body}`.trimEnd() : body;
}

// ---- rendering

interface RenderState {
  readonly base: URL | undefined;
  /** Preformatted blocks, rendered in place of their marks at the end so normalisation leaves them alone. */
  readonly pres: string[];
  sawH1: boolean;
  /** Lists, quotes and tables open around the node being rendered. */
  nesting: number;
}

function parseBase(url: string | undefined): URL | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Removes control characters (they would collide with the render marks) and folds whitespace. */
function cleanText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g, '').replace(/\u00a0/g, ' ').replace(/[ \t\n\r\f]+/g, ' ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function renderChildren(node: ElementNode, state: RenderState): string {
  let out = '';
  for (const child of node.children) out += renderNode(child, state);
  return out;
}

function renderNode(node: HtmlNode, state: RenderState): string {
  if (node.kind === 'text') return cleanText(node.text);
  const { name, attrs } = node;
  if (DROPPED_ELEMENTS.has(name) || attrs.has('hidden') || attrs.get('aria-hidden') === 'true') return '';
  const heading = /^h([1-6])$/.exec(name);
  if (heading) {
    const text = oneLine(renderChildren(node, state));
    if (text === '') return '';
    if (heading[1] === '1') state.sawH1 = true;
    return `\n\n${'#'.repeat(Number(heading[1]))} ${text}\n\n`;
  }
  if (STRUCTURES.has(name)) {
    // Each level re-normalises its content; past the bound, content is kept as plain lines so the
    // work stays linear in the page however deep a hostile page nests them.
    if (state.nesting >= MAX_HTML_STRUCTURE_NESTING) return `\n${renderChildren(node, state)}\n`;
    state.nesting++;
    try {
      return renderStructure(node, state);
    } finally {
      state.nesting--;
    }
  }
  switch (name) {
    case 'br':
      return '\n';
    case 'hr':
      return '\n\n---\n\n';
    case 'pre':
      return renderPre(node, state);
    case 'code':
    case 'kbd':
    case 'samp':
      return renderInlineCode(node);
    case 'a':
      return renderLink(node, state);
    case 'img':
      return renderImage(node, state);
    case 'strong':
    case 'b':
      return wrapInline(renderChildren(node, state), '**');
    case 'em':
    case 'i':
      return wrapInline(renderChildren(node, state), '*');
    default:
      break;
  }
  if (PARAGRAPH_BLOCKS.has(name)) return `\n\n${renderChildren(node, state)}\n\n`;
  if (LINE_BLOCKS.has(name) || name === 'tr') return `\n${renderChildren(node, state)}\n`;
  return renderChildren(node, state);
}

const STRUCTURES = new Set(['ul', 'ol', 'menu', 'li', 'blockquote', 'table']);

function renderStructure(node: ElementNode, state: RenderState): string {
  switch (node.name) {
    case 'li':
      return `\n${prefixLines(itemLines(node, state), '- ')}\n`;
    case 'blockquote':
      return `\n\n${tidy(renderChildren(node, state)).split('\n').map((line) => `> ${line}`).join('\n')}\n\n`;
    case 'table':
      return renderTable(node, state);
    default:
      return renderList(node, state);
  }
}

/** Wraps inline text in a marker, keeping the surrounding spaces outside it. */
function wrapInline(text: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return match[2] === '' ? text : `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

function resolveUrl(href: string | undefined, state: RenderState): string | undefined {
  const trimmed = href?.trim();
  if (trimmed === undefined || trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = state.base ? new URL(trimmed, state.base) : new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? cleanText(url.href) : undefined;
  } catch {
    return undefined;
  }
}

function renderLink(node: ElementNode, state: RenderState): string {
  const inner = renderChildren(node, state);
  const href = resolveUrl(node.attrs.get('href'), state);
  const text = oneLine(inner);
  if (href === undefined || text === '' || inner.includes(PRE_MARK)) return inner;
  return `[${text.replace(/[[\]]/g, '\\$&')}](${href})`;
}

function renderImage(node: ElementNode, state: RenderState): string {
  const alt = oneLine(cleanText(node.attrs.get('alt') ?? ''));
  if (alt === '') return '';
  const src = resolveUrl(node.attrs.get('src'), state);
  return src === undefined ? alt : `![${alt.replace(/[[\]]/g, '\\$&')}](${src})`;
}

function renderInlineCode(node: ElementNode): string {
  const text = oneLine(cleanText(textContent(node)));
  if (text === '') return '';
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function renderPre(node: ElementNode, state: RenderState): string {
  // eslint-disable-next-line no-control-regex
  const raw = textContent(node).replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g, '').replace(/\r\n?/g, '\n').replace(/^\n/, '').trimEnd();
  if (raw.trim() === '') return '';
  const longestRun = Math.max(0, ...[...raw.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const codeChild = node.children.find((c): c is ElementNode => c.kind === 'element' && c.name === 'code');
  const classes = `${node.attrs.get('class') ?? ''} ${codeChild?.attrs.get('class') ?? ''}`;
  const lang = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? '';
  state.pres.push(`${fence}${lang}\n${raw}\n${fence}`);
  return `\n\n${PRE_MARK}${state.pres.length - 1}${PRE_MARK}\n\n`;
}

/** The lines of a list item's content: normalised, blank lines dropped so the list stays compact. */
function itemLines(node: ElementNode, state: RenderState): string[] {
  return tidy(renderChildren(node, state)).split('\n').filter((line) => line !== '');
}

/** Puts `marker` before the first line and indents the others to line up under its text. */
function prefixLines(lines: readonly string[], marker: string): string {
  if (lines.length === 0) return '';
  const pad = INDENT.repeat(marker.length);
  return lines.map((line, i) => (i === 0 ? `${marker}${line}` : `${pad}${line}`)).join('\n');
}

function renderList(node: ElementNode, state: RenderState): string {
  const ordered = node.name === 'ol';
  const start = Number.parseInt(node.attrs.get('start') ?? '1', 10);
  let number = Number.isFinite(start) ? start : 1;
  const out: string[] = [];
  for (const child of node.children) {
    if (child.kind === 'element' && child.name === 'li') {
      const lines = itemLines(child, state);
      if (lines.length === 0) continue;
      out.push(prefixLines(lines, ordered ? `${number++}. ` : '- '));
    } else {
      const text = tidy(renderNode(child, state));
      if (text !== '') out.push(text);
    }
  }
  return out.length === 0 ? '' : `\n\n${out.join('\n')}\n\n`;
}

function renderTable(node: ElementNode, state: RenderState): string {
  const rows: ElementNode[] = [];
  const other: string[] = [];
  const collect = (parent: ElementNode): void => {
    for (const child of parent.children) {
      if (child.kind !== 'element') continue;
      if (child.name === 'tr') rows.push(child);
      else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') collect(child);
      else {
        const text = tidy(renderNode(child, state));
        if (text !== '') other.push(text);
      }
    }
  };
  collect(node);
  const lines: string[] = [...other];
  rows.forEach((row, index) => {
    const cells = row.children.filter((c): c is ElementNode => c.kind === 'element' && (c.name === 'td' || c.name === 'th'));
    if (cells.length === 0) return;
    lines.push(`| ${cells.map((cell) => oneLine(renderChildren(cell, state)).replace(/\|/g, '\\|')).join(' | ')} |`);
    if (index === 0 && cells.every((cell) => cell.name === 'th')) lines.push(`|${' --- |'.repeat(cells.length)}`);
  });
  return lines.length === 0 ? '' : `\n\n${lines.join('\n')}\n\n`;
}

/** The text of a subtree as written (for `pre`, `code`, `title`); `br` counts as a newline. */
function textContent(node: ElementNode | undefined): string {
  if (node === undefined) return '';
  let out = '';
  for (const child of node.children) {
    if (child.kind === 'text') out += child.text;
    else if (child.name === 'br') out += '\n';
    else if (!DROPPED_ELEMENTS.has(child.name)) out += textContent(child);
  }
  return out;
}

function findFirst(node: ElementNode, name: string): ElementNode | undefined {
  for (const child of node.children) {
    if (child.kind !== 'element') continue;
    if (child.name === name) return child;
    const found = findFirst(child, name);
    if (found) return found;
  }
  return undefined;
}

/** Trims every line, folds runs of spaces and of blank lines, drops blank lines at both ends. */
function tidy(text: string): string {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/ {2,}/g, ' ').trim();
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}
