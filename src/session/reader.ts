// Reads a session log back. Logs are evidence, so reading never throws on content: a line that is not
// a valid event is skipped with a warning naming it, and every other line is kept. The last line
// may be torn (the process died mid-write); that is expected after a crash and costs only that line.
// A line whose `type` this version does not know (written by a newer ptc) is skipped with a warning
// rather than kept as an opaque record: consumers switch on the known union, and the warning says
// that something, e.g. a request rebuilt from the log, may be incomplete.

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../errors.js';
import type { SessionEvent } from './events.js';
import { listSessionFiles, SESSION_FILE_EXTENSION } from './paths.js';
import { SESSION_EVENT_TYPES, sessionEventSchema } from './schema.js';
import { MAX_ISSUES_SHOWN } from './limits.js';

export interface SessionReadResult {
  /** The valid events, in file order. */
  readonly events: SessionEvent[];
  /** One entry per skipped or suspicious line, each starting with `line <n>:` (1-based). */
  readonly warnings: string[];
}

const LF = 0x0a;

/** Reads and checks the log at `file`. A missing or unreadable file is a ConfigError. */
export function readSession(file: string): SessionReadResult {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    throw new ConfigError(`Cannot read the session log ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return parseSessionLog(data);
}

/** Parses a log's bytes; lines are split on LF only (U+2028 and CR may occur inside JSON strings). */
export function parseSessionLog(data: Buffer | string): SessionReadResult {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const events: SessionEvent[] = [];
  const warnings: string[] = [];
  let start = 0;
  for (let lineNo = 1; start < bytes.length; lineNo++) {
    const end = bytes.indexOf(LF, start);
    if (end === -1) {
      // No LF: the write of this line did not finish, unless only the LF is missing.
      const parsed = parseLine(bytes.toString('utf8', start));
      if (parsed.ok) {
        events.push(parsed.event);
        warnings.push(`line ${lineNo}: the last line has no trailing LF; kept it (it is a complete event)`);
      } else {
        warnings.push(`line ${lineNo}: skipped a torn last line (${bytes.length - start} bytes)`);
      }
      break;
    }
    const text = bytes.toString('utf8', start, end);
    start = end + 1;
    if (text.trim() === '') {
      warnings.push(`line ${lineNo}: skipped a blank line`);
      continue;
    }
    const parsed = parseLine(text);
    if (parsed.ok) events.push(parsed.event);
    else warnings.push(`line ${lineNo}: skipped: ${parsed.reason}`);
  }
  return { events, warnings };
}

type LineResult = { ok: true; event: SessionEvent } | { ok: false; reason: string };

function parseLine(text: string): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `invalid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, reason: 'no "type" string' };
  if (!SESSION_EVENT_TYPES.has(type)) {
    return { ok: false, reason: `unknown event type ${JSON.stringify(type)} (written by a newer ptc?)` };
  }
  const checked = sessionEventSchema.safeParse(value);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
      const at = issue.path.length > 0 ? `/${issue.path.map(String).join('/')}` : '(line)';
      return `${at}: ${issue.message}`;
    });
    return { ok: false, reason: `not a valid ${type} event: ${issues.join('; ')}` };
  }
  // The line as written, not zod's copy: fields this version does not know are kept as evidence.
  return { ok: true, event: value as SessionEvent };
}

/**
 * The log file of a session: `idOrPrefix` is an id, a unique prefix of one, or a path to a `.jsonl`
 * file (anything containing a path separator). Unknown or ambiguous ids are ConfigErrors that say how
 * to list the ids.
 */
export function findSession(dir: string, idOrPrefix: string): string {
  const hint = `Run \`ptc sessions list\` to see the ids (with --session-dir if the logs are elsewhere).`;
  if (idOrPrefix.includes('/') || idOrPrefix.includes(path.sep)) {
    const file = path.resolve(idOrPrefix);
    if (isFile(file)) return file;
    throw new ConfigError(`No session log at ${file}. ${hint}`);
  }
  const wanted = idOrPrefix.endsWith(SESSION_FILE_EXTENSION) ? idOrPrefix.slice(0, -SESSION_FILE_EXTENSION.length) : idOrPrefix;
  if (wanted === '') throw new ConfigError(`Give a session id. ${hint}`);
  const sessions = listSessionFiles(dir);
  const exact = sessions.find((s) => s.id === wanted);
  if (exact) return exact.file;
  const matches = sessions.filter((s) => s.id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!.file;
  if (matches.length > 1) {
    const shown = matches.slice(0, 5).map((s) => s.id).join(', ');
    const more = matches.length > 5 ? ` and ${matches.length - 5} more` : '';
    throw new ConfigError(`The session id prefix ${JSON.stringify(wanted)} matches ${shown}${more}; give more characters.`);
  }
  throw new ConfigError(`No session ${JSON.stringify(wanted)} in ${dir}. ${hint}`);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
