// Where a worker's session log goes. With `ptc worker --session-dir <dir>` (a shared filesystem)
// the log is moved there and the result names its absolute path. Otherwise it travels back in the
// job's return value, gzipped, when that is at most QUEUE_MAX_INLINE_SESSION_BYTES, and the eval
// writes it to the run directory's sessions/ as a local run would; a larger log stays on the
// worker in its session directory and the result names `<host>:<path>`. docs/eval.md, "Queue mode".

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { QUEUE_MAX_INLINE_SESSION_BYTES } from './limits.js';
import type { InlineSession } from './job.js';

export interface PlacedSession {
  /** The result's sessionFile. */
  readonly sessionFile: string;
  readonly session?: InlineSession;
}

/** Moves or packs the log at `file` (the worker's own temporary copy is gone afterwards). */
export function placeSession(file: string, options: { sharedDir?: string; keepDir: string; maxInlineBytes?: number }): PlacedSession {
  const name = path.basename(file);
  if (options.sharedDir !== undefined) return { sessionFile: moveFile(file, path.join(options.sharedDir, name)) };
  const packed = gzipSync(fs.readFileSync(file));
  if (packed.length <= (options.maxInlineBytes ?? QUEUE_MAX_INLINE_SESSION_BYTES)) {
    fs.rmSync(file, { force: true });
    return { sessionFile: `sessions/${name}`, session: { name, gzipBase64: packed.toString('base64') } };
  }
  return { sessionFile: `${os.hostname()}:${moveFile(file, path.join(options.keepDir, name))}` };
}

/** Writes an inline log into `<runDir>/sessions/` atomically (a rerun of the same job overwrites it whole). */
export function writeInlineSession(runDir: string, session: InlineSession): string {
  const dir = path.join(runDir, 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, path.basename(session.name));
  const temp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temp, gunzipSync(Buffer.from(session.gzipBase64, 'base64')));
  fs.renameSync(temp, target);
  return target;
}

function moveFile(from: string, to: string): string {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.renameSync(from, to);
  } catch {
    // Another filesystem (the shared one): copy to a temp name there, then rename, so readers never see half a log.
    const temp = `${to}.${process.pid}.tmp`;
    fs.copyFileSync(from, temp);
    fs.renameSync(temp, to);
    fs.rmSync(from, { force: true });
  }
  return to;
}
