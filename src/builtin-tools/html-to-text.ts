// HTML -> readable markdown-ish text for `web_fetch` (docs/web-tools.md): headings, paragraphs, links
// as [text](href), lists, code blocks, simple tables; scripts, styles and other non-content dropped.
// A small forgiving parser (one pass, linear in the input) builds a tree whose nesting is bounded by
// MAX_HTML_DEPTH, so rendering it recursively cannot exhaust the stack on hostile pages.

import { MAX_HTML_DEPTH, MAX_HTML_STRUCTURE_NESTING } from './limits.js';

interface ElementNode {
  readonly kind: 'element';
  readonly name: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: HtmlNode[];
}

interface TextNode {
  readonly kind: 'text';
  readonly text: string;
}

type HtmlNode = ElementNode | TextNode;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose content is not markup: it runs to the matching end tag. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'textarea', 'title']);
/** Raw-text elements whose content still has character references. */
const ESCAPABLE_RAW_TEXT = new Set(['textarea', 'title']);
/** Not content for a reader: dropped with everything inside. */
const DROPPED_ELEMENTS = new Set([
  'head', 'title', 'script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas',
  'audio', 'video', 'select', 'datalist', 'button', 'input', 'textarea', 'noembed', 'noframes',
]);
/** Containers rendered on lines of their own. */
const LINE_BLOCKS = new Set([
  'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'figure', 'figcaption', 'address',
  'details', 'summary', 'dl', 'dt', 'fieldset', 'form', 'center', 'body', 'html', 'caption', 'legend',
]);
/** Blocks separated by a blank line. */
const PARAGRAPH_BLOCKS = new Set(['p', 'dd']);
/** Opening one of these closes an open `p` (as browsers do). */
const CLOSES_P = new Set([...LINE_BLOCKS, 'p', 'ul', 'ol', 'pre', 'table', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr']);

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

// ---- parsing

function element(name: string, attrs: ReadonlyMap<string, string>): ElementNode {
  return { kind: 'element', name, attrs, children: [] };
}

/** Parses HTML into a tree, recovering from bad markup roughly the way browsers do for common cases. */
export function parseHtml(html: string): ElementNode {
  const root = element('#root', new Map());
  const stack: ElementNode[] = [root];
  // How many elements of each name are open: a closer for nothing open costs no stack walk.
  const openCount = new Map<string, number>();
  const current = (): ElementNode => stack[stack.length - 1]!;
  const popTo = (length: number): void => {
    while (stack.length > length) {
      const name = stack.pop()!.name;
      openCount.set(name, openCount.get(name)! - 1);
    }
  };
  const isOpen = (name: string): boolean => (openCount.get(name) ?? 0) > 0;
  const addText = (raw: string, decode: boolean): void => {
    if (raw !== '') current().children.push({ kind: 'text', text: decode ? decodeEntities(raw) : raw });
  };
  /** Pops to the nearest open element named in `names`, unless a `boundaries` element comes first. */
  const closeUpTo = (names: ReadonlySet<string>, boundaries: ReadonlySet<string>): void => {
    if (![...names].some(isOpen)) return;
    for (let k = stack.length - 1; k > 0; k--) {
      const name = stack[k]!.name;
      if (names.has(name)) {
        popTo(k);
        return;
      }
      if (boundaries.has(name)) return;
    }
  };
  const open = (name: string, attrs: ReadonlyMap<string, string>, selfClosing: boolean): ElementNode => {
    if (CLOSES_P.has(name) && current().name === 'p') popTo(stack.length - 1);
    if (name === 'li') closeUpTo(new Set(['li']), new Set(['ul', 'ol', 'menu']));
    else if (name === 'dt' || name === 'dd') closeUpTo(new Set(['dt', 'dd']), new Set(['dl']));
    else if (name === 'tr') closeUpTo(new Set(['tr']), new Set(['table', 'thead', 'tbody', 'tfoot']));
    else if (name === 'td' || name === 'th') closeUpTo(new Set(['td', 'th']), new Set(['tr', 'table']));
    const node = element(name, attrs);
    current().children.push(node);
    // Past the depth bound an element stays empty and its content joins the ancestor at the bound.
    if (!VOID_ELEMENTS.has(name) && !selfClosing && stack.length < MAX_HTML_DEPTH) {
      stack.push(node);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
    }
    return node;
  };
  const close = (name: string): void => {
    if (!isOpen(name)) return;
    for (let k = stack.length - 1; k > 0; k--) {
      if (stack[k]!.name === name) {
        popTo(k);
        return;
      }
    }
  };

  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      addText(html.slice(i), true);
      break;
    }
    if (lt > i) addText(html.slice(i, lt), true);
    i = lt;
    const next = html[i + 1] ?? '';
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
    } else if (next === '!' || next === '?') {
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? n : end + 1;
    } else if (next === '/' && isAsciiLetter(html[i + 2] ?? '')) {
      const end = html.indexOf('>', i + 2);
      const name = readName(html, i + 2).toLowerCase();
      i = end < 0 ? n : end + 1;
      close(name);
    } else if (isAsciiLetter(next)) {
      const tag = readStartTag(html, i + 1);
      i = tag.end;
      open(tag.name, tag.attrs, tag.selfClosing);
      if (RAW_TEXT_ELEMENTS.has(tag.name) && !tag.selfClosing) {
        const closing = new RegExp(`</${tag.name}[\\s/>]`, 'ig');
        closing.lastIndex = i;
        const found = closing.exec(html);
        const stop = found ? found.index : n;
        addText(html.slice(i, stop), ESCAPABLE_RAW_TEXT.has(tag.name));
        const end = found ? html.indexOf('>', stop) : -1;
        i = end < 0 ? n : end + 1;
        close(tag.name);
      }
    } else {
      addText('<', false);
      i += 1;
    }
  }
  return root;
}

function isAsciiLetter(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f';
}

function readName(html: string, from: number): string {
  let j = from;
  while (j < html.length && !isSpace(html[j]!) && html[j] !== '/' && html[j] !== '>') j++;
  return html.slice(from, j);
}

/** Reads a start tag from just after `<`: its name, attributes (first one wins) and where it ends. */
function readStartTag(html: string, from: number): { name: string; attrs: Map<string, string>; selfClosing: boolean; end: number } {
  const n = html.length;
  const name = readName(html, from).toLowerCase();
  const attrs = new Map<string, string>();
  let j = from + name.length;
  let selfClosing = false;
  while (j < n) {
    const ch = html[j]!;
    if (isSpace(ch)) {
      j++;
      continue;
    }
    if (ch === '>') return { name, attrs, selfClosing, end: j + 1 };
    if (ch === '/') {
      selfClosing = html[j + 1] === '>';
      j++;
      continue;
    }
    selfClosing = false;
    const start = j;
    j++;
    while (j < n && !isSpace(html[j]!) && html[j] !== '/' && html[j] !== '>' && html[j] !== '=') j++;
    const attrName = html.slice(start, j).toLowerCase();
    while (j < n && isSpace(html[j]!)) j++;
    let value = '';
    if (html[j] === '=') {
      j++;
      while (j < n && isSpace(html[j]!)) j++;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const endQuote = html.indexOf(quote, j + 1);
        value = html.slice(j + 1, endQuote < 0 ? n : endQuote);
        j = endQuote < 0 ? n : endQuote + 1;
      } else {
        const valueStart = j;
        while (j < n && !isSpace(html[j]!) && html[j] !== '>') j++;
        value = html.slice(valueStart, j);
      }
    }
    if (!attrs.has(attrName)) attrs.set(attrName, decodeEntities(value));
  }
  return { name, attrs, selfClosing, end: n };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™',
  mdash: '—', ndash: '–', hellip: '…', laquo: '«', raquo: '»', lsquo: '‘', rsquo: '’', ldquo: '“',
  rdquo: '”', sbquo: '‚', bdquo: '„', bull: '•', middot: '·', times: '×', divide: '÷', minus: '−',
  plusmn: '±', deg: '°', euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶', dagger: '†',
  larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', le: '≤', ge: '≥', ne: '≠', asymp: '≈',
  frac12: '½', frac14: '¼', frac34: '¾', shy: '\u00ad', zwj: '\u200d', zwnj: '\u200c', thinsp: '\u2009',
  ensp: '\u2002', emsp: '\u2003', iexcl: '¡', iquest: '¿', auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä',
  Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß', eacute: 'é', egrave: 'è', aacute: 'á', agrave: 'à', ccedil: 'ç',
};

/** Decodes character references: numeric ones, and the named ones readers commonly meet. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));?/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(code);
  });
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
