// The output of `ptc tools` and `ptc sdk`, remembered with everything it was made from, so that the
// next identical command prints it without loading the harness (zod, yaml, the presets, the
// skills: 300+ modules; docs/benchmarks.md, "CLI start-up").
//
// Correctness comes from recording, not from a list kept by hand: while a command computes its
// output, every path it reads, lists or stats through node:fs is fingerprinted (content hash, listing,
// or absence) and every environment variable it reads is noted. A later run is a hit only when the
// command line, working directory, built CLI (buildStamp in fast-start.ts), user, terminal-ness and
// every recorded fingerprint and variable are the same; anything else is a miss that recomputes. A
// command that starts a process, fetches, writes to stderr, fails, or loads a plugin module (whose
// imports are not watched; output-cache-guard.ts) is not cached. A corrupt or foreign cache file
// is a miss. The files live in `$PTC_HOME/cache/output` (mode 0700, beside the trust store).
// PTC_NO_OUTPUT_CACHE=1 turns the cache off.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import childProcess from 'node:child_process';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OUTPUT_CACHE_HASHED_FILE_BYTES, OUTPUT_CACHE_MAX_DEPENDENCIES, OUTPUT_CACHE_MAX_FILE_BYTES } from '../limits.js';
import { ptcHome } from '../ptc-home.js';
import { buildStamp } from './fast-start.js';
import { outputCacheBlocked } from './output-cache-guard.js';

/** The commands whose output is cached. */
const CACHED_COMMANDS = new Set(['tools', 'sdk']);
/** Flags that bring in code or servers the recording cannot watch (plugin modules' imports, MCP answers). */
const UNCACHED_FLAGS = ['--plugin', '--mcp-config'];
const FORMAT = 1;

/** Our own code and its dependencies: covered by the build stamp and npm's lock file, not recorded. */
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CODE_DIRS = [path.join(packageRoot, 'dist') + path.sep, path.join(packageRoot, 'node_modules') + path.sep];
const LOCK_FILE = path.join(packageRoot, 'node_modules', '.package-lock.json');

export interface CachedOutput {
  readonly stdout: string;
  readonly exitCode: 0;
}

interface CacheEntry {
  readonly format: number;
  readonly key: string;
  /** Variable → value (null: unset) for each variable the command read. */
  readonly env: Readonly<Record<string, string | null>>;
  /** Path → fingerprint for each path the command touched. */
  readonly files: Readonly<Record<string, string>>;
  readonly stdout: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where this command's entry would be, or undefined when the command is not cached. */
export function outputCacheFile(args: readonly string[], env: Env = process.env): string | undefined {
  if (!CACHED_COMMANDS.has(args[0] ?? '') || env['PTC_NO_OUTPUT_CACHE'] === '1') return undefined;
  if (args.some((a) => UNCACHED_FLAGS.some((flag) => a === flag || a.startsWith(`${flag}=`)))) return undefined;
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        format: FORMAT,
        args,
        cwd: process.cwd(),
        stamp: buildStamp(),
        uid: process.getuid?.() ?? -1,
        home: os.homedir(),
        // The trust question is asked only when someone can answer (trust-command.ts).
        interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
        node: process.version,
      }),
    )
    .digest('hex');
  return path.join(cacheDir(env), `${key}.json`);
}

function cacheDir(env: Env): string {
  return path.join(ptcHome({ env }), 'cache', 'output');
}

/** The remembered output when every input is as it was; undefined on any difference or problem. */
export function readCachedOutput(file: string, env: Env = process.env): CachedOutput | undefined {
  let entry: CacheEntry;
  try {
    if (fs.statSync(file).size > OUTPUT_CACHE_MAX_FILE_BYTES) return undefined;
    entry = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheEntry;
  } catch {
    return undefined;
  }
  if (!isEntry(entry) || entry.key !== path.basename(file, '.json')) return undefined;
  for (const [name, value] of Object.entries(entry.env)) if ((env[name] ?? null) !== value) return undefined;
  for (const [p, fingerprint] of Object.entries(entry.files)) if (fingerprintOf(p, originalFs) !== fingerprint) return undefined;
  return { stdout: entry.stdout, exitCode: 0 };
}

function isEntry(value: unknown): value is CacheEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  const isStringMap = (m: unknown, nullable: boolean) =>
    typeof m === 'object' && m !== null && !Array.isArray(m) && Object.values(m).every((v) => typeof v === 'string' || (nullable && v === null));
  return e['format'] === FORMAT && typeof e['key'] === 'string' && typeof e['stdout'] === 'string' && isStringMap(e['env'], true) && isStringMap(e['files'], false);
}

/** The fs functions as they were before any recording: fingerprints must not record themselves. */
interface FsCalls {
  readonly lstatSync: typeof fs.lstatSync;
  readonly statSync: typeof fs.statSync;
  readonly readFileSync: typeof fs.readFileSync;
  readonly readdirSync: typeof fs.readdirSync;
  readonly readlinkSync: typeof fs.readlinkSync;
}
const originalFs: FsCalls = {
  lstatSync: fs.lstatSync,
  statSync: fs.statSync,
  readFileSync: fs.readFileSync,
  readdirSync: fs.readdirSync,
  readlinkSync: fs.readlinkSync,
};

/** What a path is now: absent, a file's content, a directory's listing, a link's target and what it leads to. */
function fingerprintOf(p: string, calls: FsCalls): string {
  try {
    const link = calls.lstatSync(p);
    const prefix = link.isSymbolicLink() ? `l:${calls.readlinkSync(p, 'utf8')}>` : '';
    const stat = link.isSymbolicLink() ? calls.statSync(p) : link;
    if (stat.isDirectory()) {
      const names = calls.readdirSync(p, { withFileTypes: true }).map((d) => `${d.name}:${d.isDirectory() ? 'd' : d.isSymbolicLink() ? 'l' : 'f'}`);
      return `${prefix}d:${createHash('sha256').update(names.sort().join('\n')).digest('hex')}`;
    }
    if (!stat.isFile()) return `${prefix}o:${stat.mode}`;
    if (stat.size > OUTPUT_CACHE_HASHED_FILE_BYTES) return `${prefix}F:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    return `${prefix}f:${createHash('sha256').update(calls.readFileSync(p)).digest('hex')}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : `error:${code ?? 'unknown'}`;
  }
}

/** fs functions whose first argument is a path the command depends on (sync, callback and promise forms). */
const FS_READS = ['readFileSync', 'statSync', 'lstatSync', 'existsSync', 'accessSync', 'readdirSync', 'opendirSync', 'realpathSync', 'openSync', 'readlinkSync', 'createReadStream', 'readFile', 'stat', 'lstat', 'access', 'readdir', 'opendir', 'realpath', 'open', 'readlink', 'exists', 'watch', 'watchFile'] as const;
const FS_PROMISE_READS = ['readFile', 'stat', 'lstat', 'access', 'readdir', 'opendir', 'realpath', 'open', 'readlink', 'watch'] as const;
const SPAWNS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

export interface OutputRecording {
  /** Stops recording and writes the entry when the output may be cached. */
  finish(exitCode: number): void;
}

/**
 * Starts recording what the command depends on (until finish). The cache directory is made first,
 * so that making it does not change a listing the command reads.
 */
export function recordOutput(file: string): OutputRecording {
  const files = new Map<string, string>();
  const envRead = new Map<string, string | null>();
  let problem: string | undefined;
  let stdout = '';
  let stderr = '';
  const block = (why: string) => void (problem ??= why);
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    block('no cache directory');
  }

  const note = (target: unknown) => {
    let p: string;
    if (typeof target === 'string') p = target;
    else if (target instanceof URL) p = fileURLToPath(target);
    else if (Buffer.isBuffer(target)) p = target.toString('utf8');
    else return; // a file descriptor: its path was noted when it was opened
    p = path.resolve(p);
    if (files.has(p) || CODE_DIRS.some((d) => p.startsWith(d)) || p.startsWith(dir + path.sep)) return;
    if (files.size >= OUTPUT_CACHE_MAX_DEPENDENCIES) return block('too many files');
    files.set(p, fingerprintOf(p, originalFs));
  };

  const restores: (() => void)[] = [];
  const patch = <T extends object>(target: T, name: string, wrap: (original: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown) => {
    const holder = target as Record<string, unknown>;
    const original = holder[name];
    if (typeof original !== 'function') return;
    const wrapped = wrap(original as (...a: unknown[]) => unknown);
    for (const key of Object.keys(original)) (wrapped as unknown as Record<string, unknown>)[key] = (original as unknown as Record<string, unknown>)[key];
    holder[name] = wrapped;
    restores.push(() => void (holder[name] = original));
  };
  const reading = (original: (...a: unknown[]) => unknown) =>
    function (this: unknown, ...a: unknown[]) {
      note(a[0]);
      return original.apply(this, a);
    };
  for (const name of FS_READS) patch(fs, name, reading);
  for (const name of FS_PROMISE_READS) patch(fs.promises, name, reading);
  // realpathSync.native is a property of realpathSync, copied onto the wrapper above.
  patch(fs.realpathSync, 'native', reading);
  patch(fs.realpath, 'native', reading);
  for (const name of SPAWNS) patch(childProcess, name, (original) => function (this: unknown, ...a: unknown[]) {
    block('started a process');
    return original.apply(this, a);
  });
  patch(globalThis, 'fetch', (original) => function (this: unknown, ...a: unknown[]) {
    block('fetched');
    return original.apply(this, a);
  });
  for (const [stream, add] of [
    [process.stdout, (s: string) => void (stdout += s)],
    [process.stderr, (s: string) => void (stderr += s)],
  ] as const) {
    patch(stream, 'write', (original) => function (this: unknown, ...a: unknown[]) {
      const chunk = a[0];
      add(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
      return original.apply(this, a);
    });
  }
  // Named imports of node:fs and node:child_process see the wrappers too.
  module.syncBuiltinESMExports();

  const realEnv = process.env;
  const readVar = (name: string | symbol) => {
    if (typeof name === 'string' && !envRead.has(name)) envRead.set(name, realEnv[name] ?? null);
  };
  process.env = new Proxy(realEnv, {
    get(target, name) {
      readVar(name);
      return Reflect.get(target, name);
    },
    has(target, name) {
      readVar(name);
      return Reflect.has(target, name);
    },
    getOwnPropertyDescriptor(target, name) {
      readVar(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
    ownKeys(target) {
      // Every variable (a copy of the environment): the output may depend on any of them.
      for (const name of Object.keys(realEnv)) readVar(name);
      return Reflect.ownKeys(target);
    },
    set(target, name, value) {
      block('changed the environment');
      return Reflect.set(target, name, value);
    },
  });

  return {
    finish(exitCode) {
      process.env = realEnv;
      for (const restore of restores.reverse()) restore();
      module.syncBuiltinESMExports();
      if (problem !== undefined || outputCacheBlocked() !== undefined || exitCode !== 0 || stderr !== '') return;
      files.set(LOCK_FILE, fingerprintOf(LOCK_FILE, originalFs));
      const entry: CacheEntry = { format: FORMAT, key: path.basename(file, '.json'), env: Object.fromEntries(envRead), files: Object.fromEntries(files), stdout };
      const text = JSON.stringify(entry);
      if (text.length > OUTPUT_CACHE_MAX_FILE_BYTES) return;
      // Atomic: a reader sees the old entry or the new one, never half of one.
      const temp = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(temp, text, { mode: 0o600 });
        fs.renameSync(temp, file);
      } catch {
        fs.rmSync(temp, { force: true });
      }
    },
  };
}
