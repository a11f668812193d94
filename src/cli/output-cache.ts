// The output of `ptc tools` and `ptc sdk`, remembered with everything it was made from, so that the
// next identical command prints it without loading the harness (zod, yaml, the presets, the
// skills: 300+ modules; docs/benchmarks.md, "CLI start-up").
//
// Correctness comes from recording, not from a list kept by hand: while a command computes its
// output, every path it reads, lists or stats through node:fs is fingerprinted (content, listing, or
// absence) and every environment variable it reads is noted. A later run is a hit only when the
// command line, working directory, built CLI (buildStamp in fast-start.ts), user, terminal-ness and
// every recorded fingerprint and variable are the same; anything else is a miss that recomputes. A
// command that starts a process, fetches, writes to stderr, fails, or loads a plugin module (whose
// imports are not watched; output-cache-guard.ts) is not cached. A corrupt or foreign cache file
// is a miss. The files live in `$PTC_HOME/cache/output` (mode 0700, beside the trust store).
// PTC_NO_OUTPUT_CACHE=1 turns the cache off. This module is the lookup, output-recorder.ts the
// recording of a miss.

import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import tty from 'node:tty';
import { fileURLToPath } from 'node:url';
import { OUTPUT_CACHE_COMPARED_FILE_BYTES, OUTPUT_CACHE_MAX_FILE_BYTES } from './limits.js';
import { ptcHome } from '../ptc-home.js';
import { buildStamp } from './fast-start.js';
import { fnv1a64 } from './fnv1a.js';

/** The commands whose output is cached. */
const CACHED_COMMANDS = new Set(['tools', 'sdk']);
/** Flags that bring in code or servers the recording cannot watch (plugin modules' imports, MCP answers). */
const UNCACHED_FLAGS = ['--plugin', '--mcp-config'];
export const FORMAT = 5;

/**
 * Code, not recorded: our own modules (the build stamp covers them) and anything under a
 * node_modules folder (packages change with an install, which rewrites npm's lock files below;
 * a preset row naming a package is not cached at all, commands.ts).
 */
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export function isCode(p: string): boolean {
  return p.startsWith(path.join(packageRoot, 'dist') + path.sep) || p.includes(`${path.sep}node_modules${path.sep}`);
}
/** npm's record of an install: a clone's, or that of the node_modules we are installed in. */
export const LOCK_FILES = [
  path.join(packageRoot, 'node_modules', '.package-lock.json'),
  ...(path.basename(path.dirname(packageRoot)) === 'node_modules' ? [path.join(path.dirname(packageRoot), '.package-lock.json')] : []),
];

export interface CachedOutput {
  readonly stdout: string;
  readonly exitCode: 0;
}

export interface CacheEntry {
  readonly format: number;
  readonly key: string;
  /** Variable → envFingerprint for each variable the command read. */
  readonly env: Readonly<Record<string, string | null>>;
  /** `<use>:<path>` (PathUse) → fingerprint for each path the command touched. */
  readonly files: Readonly<Record<string, string>>;
  readonly stdout: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where a command's entry is, and the key the entry must carry to answer it. */
export interface OutputCacheSlot {
  readonly file: string;
  /** Everything besides the recorded inputs that decides the output, as one string. */
  readonly key: string;
}

/** This command's slot, or undefined when the command is not cached. */
export function outputCacheSlot(args: readonly string[], env: Env = process.env): OutputCacheSlot | undefined {
  if (!CACHED_COMMANDS.has(args[0] ?? '') || env['PTC_NO_OUTPUT_CACHE'] === '1') return undefined;
  if (args.some((a) => UNCACHED_FLAGS.some((flag) => a === flag || a.startsWith(`${flag}=`)))) return undefined;
  const key = JSON.stringify({
        format: FORMAT,
        args,
        cwd: process.cwd(),
        stamp: buildStamp(),
        uid: process.getuid?.() ?? -1,
        home: os.homedir(),
        // Output and notes may differ on a terminal. Whether stdin is one only decides whether the
        // trust question is asked (trust-command.ts), and a command that asked wrote to stderr, so it
        // was not cached; stdin is not touched here. tty.isatty, not process.stdout.isTTY: making the
        // stream objects costs more than the lookup.
        stdout: tty.isatty(1),
        stderr: tty.isatty(2),
        node: process.version,
      });
  return { file: path.join(cacheDir(env), cacheFileName(key)), key };
}

/** The file name of an entry: it only spreads entries over files, a hit needs the whole key (no crypto module to load). */
export function cacheFileName(key: string): string {
  return `${fnv1a64(key)}.json`;
}

function cacheDir(env: Env): string {
  return path.join(ptcHome({ env }), 'cache', 'output');
}

/** The remembered output when every input is as it was; undefined on any difference or problem. */
export function readCachedOutput({ file, key }: OutputCacheSlot, env: Env = process.env): CachedOutput | undefined {
  let entry: CacheEntry;
  try {
    if (fs.statSync(file).size > OUTPUT_CACHE_MAX_FILE_BYTES) return undefined;
    entry = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheEntry;
  } catch {
    return undefined;
  }
  if (!isEntry(entry) || entry.key !== key) return undefined;
  for (const [name, value] of Object.entries(entry.env)) if (envFingerprint(name, env[name]) !== value) return undefined;
  for (const [used, fingerprint] of Object.entries(entry.files)) {
    const colon = used.indexOf(':');
    const use = used.slice(0, colon);
    if ((use !== 'entry' && use !== 'list') || fingerprintOf(used.slice(colon + 1), use, originalFs) !== fingerprint) return undefined;
  }
  return { stdout: entry.stdout, exitCode: 0 };
}

function isEntry(value: unknown): value is CacheEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  const isStringMap = (m: unknown, nullable: boolean) =>
    typeof m === 'object' && m !== null && !Array.isArray(m) && Object.values(m).every((v) => typeof v === 'string' || (nullable && v === null));
  return e['format'] === FORMAT && typeof e['key'] === 'string' && typeof e['stdout'] === 'string' && isStringMap(e['env'], true) && isStringMap(e['files'], false);
}

/** Variables whose values are kept only as a digest in the cache file, never as they are. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH/i;

/** What a variable is recorded as: null when unset, `=value`, or a SHA-256 digest of a secret-looking one. */
export function envFingerprint(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!SECRET_NAME.test(name)) return `=${value}`;
  // node:crypto only when an entry holds such a variable: loading it costs a tenth of a hit.
  const { createHash } = module.createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

/** The fs functions as they were before any recording: fingerprints must not record themselves. */
interface FsCalls {
  readonly lstatSync: typeof fs.lstatSync;
  readonly statSync: typeof fs.statSync;
  readonly readFileSync: typeof fs.readFileSync;
  readonly readdirSync: typeof fs.readdirSync;
  readonly readlinkSync: typeof fs.readlinkSync;
}
export const originalFs: FsCalls = {
  lstatSync: fs.lstatSync,
  statSync: fs.statSync,
  readFileSync: fs.readFileSync,
  readdirSync: fs.readdirSync,
  readlinkSync: fs.readlinkSync,
};

/**
 * How a command used a path: `entry` (stat, exists, realpath, open, read) or `list` (readdir,
 * opendir, watch). Recorded as `<use>:<path>`.
 */
export type PathUse = 'entry' | 'list';

/**
 * What a path is now, as far as `use` can tell: absent, a file's content (whatever the use: a stat
 * may precede an import), a directory as a directory or, listed, its listing, a link's target.
 */
export function fingerprintOf(p: string, use: PathUse, calls: FsCalls): string {
  try {
    const link = calls.lstatSync(p);
    const prefix = link.isSymbolicLink() ? `l:${calls.readlinkSync(p, 'utf8')}>` : '';
    const stat = link.isSymbolicLink() ? calls.statSync(p) : link;
    if (stat.isDirectory()) {
      if (use === 'entry') return `${prefix}d`;
      const names = calls.readdirSync(p, { withFileTypes: true }).map((d) => `${d.name}:${d.isDirectory() ? 'd' : d.isSymbolicLink() ? 'l' : 'f'}`);
      return `${prefix}d:${names.sort().join('/')}`;
    }
    if (!stat.isFile()) return `${prefix}o:${stat.mode}`;
    if (stat.size > OUTPUT_CACHE_COMPARED_FILE_BYTES) return `${prefix}F:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    // The content itself (bytes as latin1 characters, one to one): compared whole, no hash to trust.
    return `${prefix}f:${calls.readFileSync(p, 'latin1')}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : `error:${code ?? 'unknown'}`;
  }
}
