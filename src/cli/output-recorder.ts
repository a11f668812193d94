// The recording half of the output cache (output-cache.ts): while a `ptc tools` or `ptc sdk` that
// missed computes its output, the paths it touches through node:fs and the variables it reads are
// fingerprinted, and the entry is written when nothing the recording cannot watch was used.

import childProcess from 'node:child_process';
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OUTPUT_CACHE_MAX_DEPENDENCIES, OUTPUT_CACHE_MAX_ENTRIES, OUTPUT_CACHE_MAX_FILE_BYTES } from './limits.js';
import { FORMAT, LOCK_FILES, envFingerprint, isCode, fingerprintOf, originalFs, type CacheEntry, type OutputCacheSlot, type PathUse } from './output-cache.js';
import { outputCacheBlocked } from './output-cache-guard.js';
import { pruneCacheDir, writeCacheFile } from './cache-files.js';

/** fs functions whose first argument is a path the command depends on (sync, callback and promise forms). */
const FS_READS = ['readFileSync', 'statSync', 'lstatSync', 'existsSync', 'accessSync', 'readdirSync', 'opendirSync', 'realpathSync', 'openSync', 'readlinkSync', 'createReadStream', 'readFile', 'stat', 'lstat', 'access', 'readdir', 'opendir', 'realpath', 'open', 'readlink', 'exists', 'watch', 'watchFile'] as const;
const FS_PROMISE_READS = ['readFile', 'stat', 'lstat', 'access', 'readdir', 'opendir', 'realpath', 'open', 'readlink', 'watch'] as const;
/** The calls that read a directory's entries (the rest see one path). */
const LISTS = new Set(['readdirSync', 'opendirSync', 'readdir', 'opendir', 'watch']);
const SPAWNS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

export interface OutputRecording {
  /** Stops recording and writes the entry when the output may be cached. */
  finish(exitCode: number): void;
}

/**
 * Starts recording what the command depends on (until finish). The cache directory is made first,
 * so that making it does not change a listing the command reads.
 */
export function recordOutput({ file, key }: OutputCacheSlot): OutputRecording {
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

  // fingerprintOf's own reads go through fs's exported functions inside Node (readFileSync calls
  // fs.openSync): they are not the command's.
  let fingerprinting = false;
  const note = (target: unknown, use: PathUse) => {
    if (fingerprinting) return;
    let p: string;
    if (typeof target === 'string') p = target;
    else if (target instanceof URL) p = fileURLToPath(target);
    else if (Buffer.isBuffer(target)) p = target.toString('utf8');
    else return; // a file descriptor: its path was noted when it was opened
    p = path.resolve(p);
    const used = `${use}:${p}`;
    if (files.has(used) || isCode(p) || p.startsWith(dir + path.sep)) return;
    if (files.size >= OUTPUT_CACHE_MAX_DEPENDENCIES) return block('too many files');
    fingerprinting = true;
    try {
      files.set(used, fingerprintOf(p, use, originalFs));
    } finally {
      fingerprinting = false;
    }
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
  const reading = (use: PathUse) => (original: (...a: unknown[]) => unknown) =>
    function (this: unknown, ...a: unknown[]) {
      note(a[0], use);
      return original.apply(this, a);
    };
  const useOf = (name: string): PathUse => (LISTS.has(name) ? 'list' : 'entry');
  for (const name of FS_READS) patch(fs, name, reading(useOf(name)));
  for (const name of FS_PROMISE_READS) patch(fs.promises, name, reading(useOf(name)));
  // realpathSync.native is a property of realpathSync, copied onto the wrapper above.
  patch(fs.realpathSync, 'native', reading('entry'));
  patch(fs.realpath, 'native', reading('entry'));
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
    if (typeof name === 'string' && !envRead.has(name)) envRead.set(name, envFingerprint(name, realEnv[name]));
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
      for (const lock of LOCK_FILES) files.set(`entry:${lock}`, fingerprintOf(lock, 'entry', originalFs));
      const entry: CacheEntry = { format: FORMAT, key, env: Object.fromEntries(envRead), files: Object.fromEntries(files), stdout };
      const text = JSON.stringify(entry);
      if (text.length > OUTPUT_CACHE_MAX_FILE_BYTES) return;
      // Atomic: a reader sees the old entry or the new one, never half of one.
      writeCacheFile(file, text);
      pruneCacheDir(dir, OUTPUT_CACHE_MAX_ENTRIES);
    },
  };
}
