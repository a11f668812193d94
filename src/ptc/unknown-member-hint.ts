// "Did you mean" for a program that called a tool the SDK does not have: the child reports it as
// the language's own error (Node: `TypeError: tools.ecoh is not a function`; Python:
// `AttributeError: tools has no member 'ecoh'`), which names no alternative. The host knows the
// visible tools and adds the nearest names to the message; the code (EXCEPTION) stays.

import { didYouMean } from '../did-you-mean.js';
import type { ErrorInfo } from '../errors.js';

const NODE_MISSING = /\b(tools|sdk)(?:\.([\w$-]+)|\[["']([^"'\n]+)["']\]) is not a function\b/;
const PYTHON_MISSING = /\b(tools|sdk) has no member '([^'\n]+)'/;

/** `error` with a suggestion appended when it is a call of a member `tools`/`sdk` does not have. */
export function withUnknownMemberHint(error: ErrorInfo, toolNames: readonly string[], sdkMembers: readonly string[]): ErrorInfo {
  if (error.code !== 'EXCEPTION') return error;
  const node = NODE_MISSING.exec(error.message);
  const python = node === null ? PYTHON_MISSING.exec(error.message) : null;
  const global = node?.[1] ?? python?.[1];
  const name = node !== null ? (node[2] ?? node[3]) : python?.[2];
  if (global === undefined || name === undefined) return error;
  const known = global === 'tools' ? toolNames : sdkMembers;
  const hint = didYouMean(name, known);
  const what = global === 'tools' ? `no tool is named ${JSON.stringify(name)}` : `sdk has no ${JSON.stringify(name)}`;
  return { code: error.code, message: `${error.message} (${what}.${hint !== '' ? hint : ` The SDK lists the ${global === 'tools' ? 'tools' : 'methods'}.`})` };
}
