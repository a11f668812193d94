// Text of the model (or of a file it wrote) made safe to print on a terminal: every control,
// line-separator and bidi/format character written as a `\u` escape, so a carriage return or an
// escape sequence cannot redraw what the person reads (docs/security.md, "Approval edges").

const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

/** `text` with every control, line-separator and bidi/format character (a tab excepted) as a `\u` escape. */
export function visible(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text that keeps its line breaks and tabs but shows every other control character, line separator
 * and bidi control as a `\u` escape (a CRLF becomes a plain line break): the model's answer printed
 * unrendered on a terminal. Unlike visible(), other format characters (an emoji's zero-width
 * joiner) stay: this is prose, not a question whose every character must be seen.
 */
export function visibleKeepingLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_IN_TEXT, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** `text` cut to `max` characters with an ellipsis. */
export function preview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** SGR colours for the few things the chat colours itself (diff lines, the status line). */
export const sgr = {
  red: (s: string) => `\u001b[31m${s}\u001b[39m`,
  green: (s: string) => `\u001b[32m${s}\u001b[39m`,
  cyan: (s: string) => `\u001b[36m${s}\u001b[39m`,
  dim: (s: string) => `\u001b[2m${s}\u001b[22m`,
  bold: (s: string) => `\u001b[1m${s}\u001b[22m`,
};
