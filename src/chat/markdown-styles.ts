// The colours of rendered markdown. The chat decides whether colour is on (a terminal, NO_COLOR
// unset: docs/chat.md, "Markdown"); the styles here are plain SGR functions, so that decision is
// the only one. The renderer's own defaults come from a colour library that reads the environment
// when it loads and turns colour off under `CI=1`, `TERM=dumb` or a non-terminal stdout, which the
// chat has already ruled on.

import { sgr } from '../terminal-text.js';

type Style = (text: string) => string;

const wrap = (open: number, close: number): Style => (text) => `\u001b[${open}m${text}\u001b[${close}m`;
const italic = wrap(3, 23);
const underline = wrap(4, 24);
const strike = wrap(9, 29);
const blue = wrap(34, 39);
const yellow = wrap(33, 39);
const magenta = wrap(35, 39);
const gray = wrap(90, 39);
const plain: Style = (text) => text;

/** Styles of the markdown elements, as `marked-terminal` options. */
export const markdownStyles = {
  heading: (text: string) => sgr.bold(sgr.green(text)),
  firstHeading: (text: string) => sgr.bold(underline(magenta(text))),
  code: yellow,
  codespan: yellow,
  blockquote: (text: string) => italic(gray(text)),
  html: gray,
  strong: sgr.bold,
  em: italic,
  del: (text: string) => strike(sgr.dim(text)),
  link: blue,
  href: (text: string) => underline(blue(text)),
  hr: plain,
  listitem: plain,
  table: plain,
  paragraph: plain,
} as const;

/** Colours of highlighted code by token class (the highlighter's theme). */
export const codeTheme: Readonly<Record<string, Style>> = {
  keyword: blue,
  built_in: sgr.cyan,
  type: sgr.cyan,
  literal: blue,
  number: sgr.green,
  regexp: sgr.red,
  string: sgr.red,
  class: blue,
  function: yellow,
  comment: gray,
  doctag: gray,
  meta: gray,
  tag: gray,
  name: blue,
  attr: sgr.cyan,
  addition: sgr.green,
  deletion: sgr.red,
  emphasis: italic,
  strong: sgr.bold,
  link: underline,
  default: plain,
};
