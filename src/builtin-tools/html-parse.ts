// A small forgiving HTML parser for `web_fetch`'s converter (html-to-text.ts, docs/web-tools.md): one
// pass, linear in the input, recovering from bad markup roughly the way browsers do for common cases.
// The tree it builds nests at most MAX_HTML_DEPTH deep, so rendering it recursively cannot exhaust the
// stack on hostile pages.

import { MAX_HTML_DEPTH } from './limits.js';

export interface ElementNode {
  readonly kind: 'element';
  readonly name: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: HtmlNode[];
}

export interface TextNode {
  readonly kind: 'text';
  readonly text: string;
}

export type HtmlNode = ElementNode | TextNode;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose content is not markup: it runs to the matching end tag. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'textarea', 'title']);
/** Raw-text elements whose content still has character references. */
const ESCAPABLE_RAW_TEXT = new Set(['textarea', 'title']);
/** Containers rendered on lines of their own. */
export const LINE_BLOCKS = new Set([
  'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'figure', 'figcaption', 'address',
  'details', 'summary', 'dl', 'dt', 'fieldset', 'form', 'center', 'body', 'html', 'caption', 'legend',
]);
/** Opening one of these closes an open `p` (as browsers do). */
const CLOSES_P = new Set([...LINE_BLOCKS, 'p', 'ul', 'ol', 'pre', 'table', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr']);

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
