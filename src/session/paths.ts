// Where session logs live and what they are called: `<dir>/<id>.jsonl`, one file per session.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ConfigError } from '../errors.js';

export interface SessionDirOptions {
  /** `--session-dir`; wins over everything else. Relative paths resolve against `cwd`. */
  readonly sessionDir?: string | undefined;
  /** The environment to read `PTC_HOME` from (pass `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Base of relative paths; default `process.cwd()`. */
  readonly cwd?: string;
  /** The user's home directory; default `os.homedir()`. */
  readonly homedir?: string;
}

export const SESSION_FILE_EXTENSION = '.jsonl';

/**
 * The session directory: `--session-dir`, else `$PTC_HOME/sessions`, else `~/.ptc/sessions`.
 * An empty flag or `PTC_HOME` counts as unset; a leading `~/` is expanded (a quoted `~` reaches us
 * unexpanded). Nothing is created here: the writer creates the directory on its first write.
 */
export function resolveSessionDir(options: SessionDirOptions): string {
  const cwd = options.cwd ?? process.cwd();
  const home = options.homedir ?? os.homedir();
  const absolute = (p: string): string => path.resolve(cwd, expandHome(p, home));
  if (options.sessionDir) return absolute(options.sessionDir);
  const ptcHome = options.env['PTC_HOME'];
  if (ptcHome) return path.join(absolute(ptcHome), 'sessions');
  return path.join(home, '.ptc', 'sessions');
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** Creates `dir` and its missing parents, private to the user (logs hold prompts and tool output). */
export function ensureSessionDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

// Crockford's base32: no I, L, O, U, so ids read back unambiguously; lower case, in ASCII order.
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_CHARS = 6;

/**
 * A new session id, `YYYYMMDD-HHMMSS-xxxxxx` (UTC time, then 30 random bits): ids sort by start
 * time, are safe in file names on every platform, and collide only within one second by chance
 * (the writer creates files exclusively, so a collision is an error, never an overwrite).
 */
export function newSessionId(now: Date = new Date()): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const date = `${pad(now.getUTCFullYear(), 4)}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const bytes = randomBytes(RANDOM_CHARS);
  let suffix = '';
  for (const byte of bytes) suffix += BASE32[byte & 31];
  return `${date}-${time}-${suffix}`;
}

const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws ConfigError unless `id` can name a file in the session directory and nothing else. */
export function assertSessionId(id: string): void {
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new ConfigError(
      `Invalid session id ${JSON.stringify(id)}: use letters, digits, '.', '_' and '-' (at most 128, not starting with a punctuation mark).`,
    );
  }
}

export function sessionFilePath(dir: string, sessionId: string): string {
  assertSessionId(sessionId);
  return path.join(dir, sessionId + SESSION_FILE_EXTENSION);
}

/** Where a session's spilled outputs go: `<dir>/<id>.spill/` (docs/sessions.md, "Spill"). */
export function spillDirPath(dir: string, sessionId: string): string {
  assertSessionId(sessionId);
  return path.join(dir, `${sessionId}.spill`);
}

export interface SessionFile {
  readonly id: string;
  readonly file: string;
}

/** The `*.jsonl` files directly in `dir`, sorted by id (oldest first); none when `dir` does not exist. */
export function listSessionFiles(dir: string): SessionFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return [];
    throw new ConfigError(`Cannot list the session directory ${dir}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return names
    .filter((name) => name.endsWith(SESSION_FILE_EXTENSION) && name.length > SESSION_FILE_EXTENSION.length)
    .sort()
    .map((name) => ({ id: name.slice(0, -SESSION_FILE_EXTENSION.length), file: path.join(dir, name) }));
}
