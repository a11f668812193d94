// Saved approval rules (docs/config.md, "Approval rules"): `allow` and `deny` lists of `tool` or
// `tool: pattern`, matched against the argument that says what a call touches: bash's command, a
// file tool's path relative to the workspace, web_fetch's URL. Any other tool takes the tool name
// only. Deny wins over allow and over a session's allowance; an allow only spares the ordinary ask
// (a protected path still asks, docs/security.md).

import path from 'node:path';
import type { JsonValue } from '../json.js';

export type RuleEffect = 'allow' | 'deny';

export interface ApprovalRule {
  readonly effect: RuleEffect;
  /** A tool name; `*` matches any run of characters (`github__*`). */
  readonly tool: string;
  /** Matched against the tool's argument (ARGUMENT_OF); none: every call of the tool. */
  readonly pattern?: string;
  /** Where it was written: `file:line`, or `this session` for one answered now and not saved. */
  readonly origin: string;
}

/** Which argument a pattern is matched against, per tool. */
const ARGUMENT_OF: Readonly<Record<string, { readonly arg: string; readonly kind: 'command' | 'path' | 'url'; readonly fallback?: string }>> = {
  bash: { arg: 'command', kind: 'command' },
  read: { arg: 'path', kind: 'path' },
  write: { arg: 'path', kind: 'path' },
  edit: { arg: 'path', kind: 'path' },
  str_replace_editor: { arg: 'path', kind: 'path' },
  grep: { arg: 'path', kind: 'path', fallback: '.' },
  glob: { arg: 'path', kind: 'path', fallback: '.' },
  web_fetch: { arg: 'url', kind: 'url' },
};

/** The tools whose rules take a pattern, for messages. */
export const PATTERN_TOOLS: readonly string[] = Object.keys(ARGUMENT_OF);

const TOOL_PART = /^[A-Za-z0-9_.*-]+$/;

/** `tool` or `tool: pattern` as written in a config file; a string error says what is wrong and how to write it. */
export function parseRuleText(text: string): { tool: string; pattern?: string } | string {
  const colon = text.indexOf(':');
  const tool = (colon < 0 ? text : text.slice(0, colon)).trim();
  const pattern = colon < 0 ? undefined : text.slice(colon + 1).trim();
  if (!TOOL_PART.test(tool)) return `"${text}" does not start with a tool name; write \`tool\` or \`tool: pattern\`, e.g. "bash: npm test*" or "write: src/**"`;
  if (pattern === undefined) return { tool };
  if (pattern === '') return `"${text}" has an empty pattern; write \`${tool}\` for every call of it, or give a pattern after the colon`;
  if (!Object.hasOwn(ARGUMENT_OF, tool)) {
    return `"${text}": only ${PATTERN_TOOLS.join(', ')} take a pattern (other tools have no argument a rule reads); write \`${tool}\` to match every call of it`;
  }
  return { tool, pattern };
}

/** How a rule is written in a config file: `bash: npm test*`. */
export function ruleText(rule: Pick<ApprovalRule, 'tool' | 'pattern'>): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}: ${rule.pattern}`;
}

export interface RuleCall {
  readonly tool: string;
  readonly args: JsonValue;
}

/** Whether `rule` covers `call` in `workspace`. */
export function ruleMatches(rule: Pick<ApprovalRule, 'effect' | 'tool' | 'pattern'>, call: RuleCall, workspace: string): boolean {
  if (!globMatch(rule.tool, call.tool, 'any')) return false;
  if (rule.pattern === undefined) return true;
  const spec = ARGUMENT_OF[call.tool];
  if (spec === undefined) return false;
  const value = argumentOf(call.args, spec.arg) ?? spec.fallback;
  if (value === undefined) return false;
  switch (spec.kind) {
    case 'command':
      return commandMatches(rule.pattern, value, rule.effect);
    case 'path':
      return pathMatches(rule.pattern, value, workspace);
    case 'url':
      return globMatch(rule.pattern, value.trim(), 'any');
  }
}

/**
 * The rule an "always allow" answer saves for `call`: bash's exact command, a file tool's path
 * (relative to the workspace inside it), web_fetch's exact URL, else the tool. Wildcards in the
 * value are escaped, so the rule covers this call's argument and nothing wider.
 */
export function ruleFor(call: RuleCall, workspace: string): { tool: string; pattern?: string } {
  const spec = ARGUMENT_OF[call.tool];
  const value = spec === undefined ? undefined : argumentOf(call.args, spec.arg);
  if (spec === undefined || value === undefined || value.trim() === '') return { tool: call.tool };
  const shown = spec.kind === 'path' ? displayPath(value, workspace) : value.trim();
  return { tool: call.tool, pattern: escapeGlob(shown) };
}

/** What an "always allow" answer to `call` would save, as written in the file: `bash: npm test`. */
export function describeRuleFor(call: RuleCall, workspace: string): string {
  return ruleText(ruleFor(call, workspace));
}

function argumentOf(args: JsonValue, name: string): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = (args as Record<string, JsonValue>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Where a command splits into commands a deny rule is also matched against. */
const SHELL_SEPARATORS = /\|\||&&|[;&|\n\r]|\$\(|[`()]/;

function commandMatches(pattern: string, command: string, effect: RuleEffect): boolean {
  const text = command.trim();
  // An allow's `*` never spans shell operators or expansions: else `npm test*` would also allow
  // `npm test; curl … | sh`. Such a command matches an allow only where the rule spells them out.
  if (effect === 'allow') return globMatch(pattern, text, 'no-shell-special');
  // A deny is matched against the whole command and each command in it (`cd x && rm -rf y`).
  if (globMatch(pattern, text, 'any')) return true;
  return text
    .split(SHELL_SEPARATORS)
    .map((part) => part.trim())
    .some((part) => part !== '' && globMatch(pattern, part, 'any'));
}

/** A path as rules see it: relative to the workspace with `/` inside it, else absolute. */
function displayPath(value: string, workspace: string): string {
  const absolute = path.resolve(workspace, value);
  const relative = path.relative(workspace, absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return relative.split(path.sep).join('/');
}

/** A relative pattern matches a path inside the workspace; a pattern starting with `/` an absolute path. */
function pathMatches(pattern: string, value: string, workspace: string): boolean {
  const shown = displayPath(value, workspace);
  const absolutePattern = pattern.startsWith('/');
  if (absolutePattern) return globMatch(pattern, path.resolve(workspace, value), 'path');
  if (path.isAbsolute(shown)) return false;
  return globMatch(pattern.replace(/^\.\//, ''), shown, 'path');
}

function escapeGlob(text: string): string {
  return text.replace(/[\\*?]/g, (c) => `\\${c}`);
}

/**
 * Glob matching: `\x` is a literal x, `?` one character, `*` a run of characters. `path`: `*` and
 * `?` stay within one path segment and `**` spans segments (`src/**` is everything under src);
 * `no-shell-special`: `*` and `?` never match shell operators or expansions (`;&|<>$`, backquote, backslash, parentheses, newlines).
 */
export function globMatch(pattern: string, text: string, mode: 'any' | 'path' | 'no-shell-special'): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      source += escapeRegExp(pattern[++i]!);
    } else if (c === '*') {
      if (mode === 'path' && pattern[i + 1] === '*') {
        i++;
        // `**/` also matches no directory at all: `src/**/a.ts` covers `src/a.ts`.
        if (pattern[i + 1] === '/') {
          i++;
          source += '(?:.*/)?';
        } else source += '.*';
      } else source += mode === 'path' ? '[^/]*' : mode === 'no-shell-special' ? '[^;&|<>$`\\\\\\n\\r()]*' : '[\\s\\S]*';
    } else if (c === '?') {
      source += mode === 'path' ? '[^/]' : mode === 'no-shell-special' ? '[^;&|<>$`\\\\\\n\\r()]' : '[\\s\\S]';
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`).test(text);
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}
