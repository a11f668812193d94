import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { spillDirPath } from './paths.js';
import { removeSession } from './remove.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-rm-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function session(id: string, ended: boolean): void {
  const lines = [
    { type: 'session/start', ts: '2026-01-01T00:00:00Z', sessionId: id, preset: 'ptc', cwd: '/w', model: 'm', mode: 'ptc', pid: process.pid, host: os.hostname() },
    ...(ended ? [{ type: 'session/end', ts: '2026-01-01T00:00:01Z', reason: 'completed', steps: 1 }] : []),
  ];
  fs.writeFileSync(path.join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  fs.mkdirSync(spillDirPath(dir, id));
  fs.writeFileSync(path.join(spillDirPath(dir, id), 'call_1.txt'), 'spilled');
}

describe('removeSession', () => {
  it('removes the log and its spill directory, and nothing of another session', () => {
    session('a-1', true);
    session('b-1', true);
    const removed = removeSession(dir, 'a-1');
    expect(removed).toEqual({ sessionId: 'a-1', file: path.join(dir, 'a-1.jsonl'), spillDir: spillDirPath(dir, 'a-1') });
    expect(fs.readdirSync(dir).sort()).toEqual(['b-1.jsonl', 'b-1.spill']);
    expect(fs.readdirSync(spillDirPath(dir, 'b-1'))).toEqual(['call_1.txt']);
  });

  it('refuses a session whose turn is running, naming the cause and what to do', () => {
    session('c-1', false);
    let caught: unknown;
    try {
      removeSession(dir, 'c-1');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HarnessError);
    expect((caught as HarnessError).code).toBe('CONFIG');
    expect((caught as HarnessError).message).toMatch(/still running.*wait/);
    expect(fs.existsSync(spillDirPath(dir, 'c-1'))).toBe(true);
  });
});
