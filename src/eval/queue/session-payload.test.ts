import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { placeSession, writeInlineSession } from './session-payload.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-session-payload-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function log(dir: string, bytes: number): string {
  const file = path.join(dir, '20261201-000000-abcdef.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ type: 'session/start', ts: 't' })}\n${'x'.repeat(bytes)}\n`);
  return file;
}

describe('placeSession', () => {
  it('packs a small log into the return value, and the eval writes back the same bytes', () => {
    const worker = tempDir();
    const file = log(worker, 1000);
    const original = fs.readFileSync(file);
    const placed = placeSession(file, { keepDir: path.join(worker, 'keep') });
    expect(placed.sessionFile).toBe('sessions/20261201-000000-abcdef.jsonl');
    expect(fs.existsSync(file)).toBe(false);
    const run = tempDir();
    const written = writeInlineSession(run, placed.session!);
    expect(written).toBe(path.join(run, placed.sessionFile));
    expect(fs.readFileSync(written)).toEqual(original);
  });

  it('keeps a log over the inline bound on the worker and names host and path', () => {
    const worker = tempDir();
    const random = Array.from({ length: 4000 }, () => Math.random().toString(36)).join('');
    const file = path.join(worker, 'big.jsonl');
    fs.writeFileSync(file, random);
    const placed = placeSession(file, { keepDir: path.join(worker, 'keep'), maxInlineBytes: 1024 });
    expect(placed.session).toBeUndefined();
    expect(placed.sessionFile).toBe(`${os.hostname()}:${path.join(worker, 'keep', 'big.jsonl')}`);
    expect(fs.readFileSync(path.join(worker, 'keep', 'big.jsonl'), 'utf8')).toBe(random);
  });

  it('moves the log into a shared directory when the worker has one', () => {
    const worker = tempDir();
    const shared = tempDir();
    const placed = placeSession(log(worker, 10), { sharedDir: shared, keepDir: worker });
    expect(placed).toEqual({ sessionFile: path.join(shared, '20261201-000000-abcdef.jsonl') });
    expect(fs.existsSync(placed.sessionFile)).toBe(true);
  });
});
