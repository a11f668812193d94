// The spill store of one agent session (docs/sessions.md, "Spill"): a tool result or a stream over its
// limit is written whole to `<session dir>/<session id>.spill/`, and the model gets a preview that
// names the file. Files appear atomically (written under a temp name, then renamed), private (0600),
// and the store's total size is bounded so a flood cannot fill the disk.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { MAX_SPILL_FILE_BYTES, MAX_SPILL_SESSION_BYTES, MAX_SPILL_NAME_CHARS } from '../limits.js';

/** One spilled text: where it is and how much of it the file holds. */
export interface SpillRef {
  /** Absolute real path of the file (what `read` takes). */
  readonly path: string;
  /** Bytes in the file. */
  readonly bytes: number;
  /** Bytes of the whole text; more than `bytes` when the file cap cut it. */
  readonly totalBytes: number;
}

/** An append-only spill file being filled (a command's stream); nothing is visible until `commit`. */
export interface SpillStream {
  push(chunk: Buffer): void;
  /** Renames the file into place; undefined when nothing could be kept (budget used up, write failed). */
  commit(): SpillRef | undefined;
  /** Removes the temp file and gives its bytes back to the budget. */
  discard(): void;
}

export interface SpillStore {
  /**
   * The directory, absolute and real (it may not exist yet): the one path outside the workspace the
   * file tools read (docs/sessions.md, "Spill").
   */
  readonly dir: string;
  /** Writes `text` whole as `<name>.txt` (cut at the file cap); undefined when the budget is used up or the write failed. */
  writeText(name: string, text: string): SpillRef | undefined;
  /** Starts a file `<name>.txt` filled chunk by chunk. */
  open(name: string): SpillStream;
  /** Bytes the store's files hold (including streams being filled). */
  readonly usedBytes: number;
  /** Bounds, in bytes. */
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

export interface SpillStoreOptions {
  /** The spill directory (created on the first spill, mode 0700). */
  readonly dir: string;
  readonly maxFileBytes?: number;
  readonly maxTotalBytes?: number;
}

/** A store over `options.dir`; files already there (an earlier turn) count against the budget. */
export function createSpillStore(options: SpillStoreOptions): SpillStore {
  const maxFileBytes = options.maxFileBytes ?? MAX_SPILL_FILE_BYTES;
  const maxTotalBytes = options.maxTotalBytes ?? MAX_SPILL_SESSION_BYTES;
  const dir = realTarget(options.dir);
  let used: number | undefined;
  const names = new Set<string>();

  const usedNow = (): number => (used ??= sizeOfDir(dir));
  const reserve = (bytes: number): boolean => {
    if (usedNow() + bytes > maxTotalBytes) return false;
    used = usedNow() + bytes;
    return true;
  };
  const release = (bytes: number): void => {
    used = Math.max(0, usedNow() - bytes);
  };
  const ensureDir = (): boolean => {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) return false;
    }
    // A planted symlink or file in its place is never written through.
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    return stat !== undefined && stat.isDirectory();
  };
  const finalName = (name: string): string => {
    const base = fileBase(name);
    for (let n = 1; ; n++) {
      const candidate = `${base}${n === 1 ? '' : `-${n}`}.txt`;
      if (!names.has(candidate) && !fs.existsSync(path.join(dir, candidate))) {
        names.add(candidate);
        return candidate;
      }
    }
  };

  const open = (name: string): SpillStream => {
    let fd: number | undefined;
    let temp: string | undefined;
    let written = 0;
    let total = 0;
    let failed = false;
    const start = (): boolean => {
      if (fd !== undefined) return true;
      if (failed || !ensureDir()) {
        failed = true;
        return false;
      }
      temp = path.join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
      try {
        fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
        return true;
      } catch {
        failed = true;
        return false;
      }
    };
    const close = (): void => {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
    };
    const discard = (): void => {
      close();
      if (temp !== undefined) fs.rmSync(temp, { force: true });
      temp = undefined;
      release(written);
      written = 0;
    };
    return {
      push(chunk) {
        total += chunk.length;
        // As much as the file cap and the session budget leave: the file keeps the stream's start.
        const room = Math.min(maxFileBytes - written, chunk.length, maxTotalBytes - usedNow());
        if (room <= 0 || failed || !start() || !reserve(room)) return;
        try {
          fs.writeSync(fd!, chunk, 0, room);
          written += room;
        } catch {
          release(room);
          failed = true;
        }
      },
      commit() {
        if (fd === undefined || failed || written === 0) {
          discard();
          return undefined;
        }
        close();
        const target = path.join(dir, finalName(name));
        try {
          fs.renameSync(temp!, target);
        } catch {
          discard();
          return undefined;
        }
        temp = undefined;
        return { path: target, bytes: written, totalBytes: total };
      },
      discard,
    };
  };

  return {
    dir,
    get usedBytes() {
      return usedNow();
    },
    maxFileBytes,
    maxTotalBytes,
    open,
    writeText(name, text) {
      const whole = Buffer.from(text, 'utf8');
      const kept = whole.length <= maxFileBytes ? whole : whole.subarray(0, utf8Boundary(whole, maxFileBytes));
      // A result is kept whole (up to the file cap) or not at all.
      if (usedNow() + kept.length > maxTotalBytes) return undefined;
      const stream = open(name);
      stream.push(kept);
      const ref = stream.commit();
      return ref === undefined ? undefined : { ...ref, totalBytes: whole.length };
    },
  };
}

/**
 * A store for a run without a session directory (library use): a private temp directory, removed by
 * the returned `remove()` when the run ends (docs/sessions.md, "Spill").
 */
export function createTempSpillStore(options: Omit<SpillStoreOptions, 'dir'> = {}): { store: SpillStore; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-spill-'));
  return { store: createSpillStore({ ...options, dir }), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A call id as a file name: only `[A-Za-z0-9._-]`, never empty, never starting with a dot, bounded in length. */
function fileBase(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '').slice(0, MAX_SPILL_NAME_CHARS);
  return safe === '' ? 'result' : safe;
}

/** The spill directory's absolute path with its parent's symbolic links resolved (a path the resolver compares). */
function realTarget(dir: string): string {
  const absolute = path.resolve(dir);
  try {
    return path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return absolute;
  }
}

function sizeOfDir(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const stat = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    if (stat?.isFile()) total += stat.size;
  }
  return total;
}

/** The largest cut at most `max` bytes that does not split a UTF-8 sequence. */
function utf8Boundary(bytes: Buffer, max: number): number {
  let at = Math.min(max, bytes.length);
  while (at > 0 && at < bytes.length && (bytes[at]! & 0xc0) === 0x80) at--;
  return at;
}
