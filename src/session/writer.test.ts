import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { MAX_SESSION_LINE_BYTES } from '../limits.js';
import type { SessionEvent } from './events.js';
import { parseSessionLog } from './reader.js';
import { createSessionWriter, SessionLogClosedError, type SessionWriter } from './writer.js';

let root: string;
let dir: string;
const writers: SessionWriter[] = [];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-writer-'));
  dir = path.join(root, 'home', 'sessions');
});

afterEach(() => {
  for (const w of writers.splice(0)) w.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function open(options: { sessionId?: string; maxLineBytes?: number; now?: () => Date } = {}): SessionWriter {
  const writer = createSessionWriter({ dir, ...options });
  writers.push(writer);
  return writer;
}

/** A clock that ticks one second per call, from a fixed instant. */
function steppingClock(): () => Date {
  let t = Date.parse('2026-11-29T14:15:30.000Z');
  return () => new Date((t += 1000));
}

function linesOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

describe('SessionWriter', () => {
  it('creates the directory (0700) and the file (0600) exclusively, named by the session id', () => {
    const w = open({ sessionId: 'abc' });
    expect(w.file).toBe(path.join(dir, 'abc.jsonl'));
    expect(w.sessionId).toBe('abc');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(w.file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(w.file, 'utf8')).toBe('');
  });

  it('picks a fresh id when none is given', () => {
    const w = open({ now: () => new Date('2026-11-29T14:15:30Z') });
    expect(w.sessionId).toMatch(/^20261129-141530-[0-9a-z]{6}$/);
    expect(fs.existsSync(w.file)).toBe(true);
  });

  it('has each line on disk as soon as append returns, in order, stamped with ts', () => {
    const w = open({ sessionId: 's1', now: steppingClock() });
    const returned: SessionEvent[] = [];
    returned.push(w.append({ type: 'user/message', text: 'first\nwith a newline and \u2028 inside' }));
    expect(linesOf(w.file)).toHaveLength(1);
    returned.push(w.append({ type: 'tool/call', id: 'c1', name: 'read', args: { path: 'a.txt' } }));
    returned.push(w.append({ type: 'tool/result', id: 'c1', name: 'read', content: 'hello', isError: false }));

    const lines = linesOf(w.file);
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((e) => e['type'])).toEqual(['user/message', 'tool/call', 'tool/result']);
    expect(parsed.map((e) => e['ts'])).toEqual(['2026-11-29T14:15:31.000Z', '2026-11-29T14:15:32.000Z', '2026-11-29T14:15:33.000Z']);
    expect(Object.keys(parsed[1]!).slice(0, 2)).toEqual(['type', 'ts']);
    expect(parsed).toEqual(returned);
  });

  it('stamps the real time by default', () => {
    const w = open();
    const e = w.append({ type: 'user/message', text: 'x' });
    expect(new Date(e.ts).toISOString()).toBe(e.ts);
  });

  it('refuses an existing session id and leaves that file alone', () => {
    fs.mkdirSync(dir, { recursive: true });
    const existing = path.join(dir, 'taken.jsonl');
    fs.writeFileSync(existing, 'evidence\n');
    expect(() => open({ sessionId: 'taken' })).toThrow(ConfigError);
    try {
      open({ sessionId: 'taken' });
    } catch (error) {
      expect((error as ConfigError).code).toBe('CONFIG');
    }
    expect(fs.readFileSync(existing, 'utf8')).toBe('evidence\n');
  });

  it('refuses a session id that is not a plain file name', () => {
    expect(() => open({ sessionId: '../escape' })).toThrow(ConfigError);
    expect(fs.existsSync(path.join(root, 'home', 'escape.jsonl'))).toBe(false);
  });

  it('reports a directory it cannot create as a configuration error', () => {
    fs.writeFileSync(path.join(root, 'file'), '');
    expect(() => createSessionWriter({ dir: path.join(root, 'file', 'sessions') })).toThrow(ConfigError);
  });

  it('throws on append after close; close and flush after close are no-ops', () => {
    const w = open({ sessionId: 'closed' });
    w.append({ type: 'user/message', text: 'x' });
    w.flush();
    w.close();
    expect(w.closed).toBe(true);
    expect(() => w.append({ type: 'user/message', text: 'late' })).toThrow(SessionLogClosedError);
    expect(() => w.close()).not.toThrow();
    expect(() => w.flush()).not.toThrow();
    expect(linesOf(w.file)).toHaveLength(1);
  });

  it('rejects a line limit too small to hold an event', () => {
    expect(() => open({ maxLineBytes: 100 })).toThrow(ConfigError);
  });
});

describe('SessionWriter with oversized events', () => {
  const maxLineBytes = 4096;

  function lastLine(w: SessionWriter): { raw: string; event: Record<string, unknown> } {
    const raw = linesOf(w.file).at(-1)!;
    return { raw, event: JSON.parse(raw) as Record<string, unknown> };
  }

  it('cuts a long string with a marker, notes it, and returns the event as written', () => {
    const w = open({ maxLineBytes });
    const content = 'abc'.repeat(5000);
    const written = w.append({ type: 'tool/result', id: 'c1', name: 'read', content, isError: false });
    const { raw, event } = lastLine(w);
    expect(Buffer.byteLength(raw) + 1).toBeLessThanOrEqual(maxLineBytes);
    expect(event).toEqual(written);
    expect(event['id']).toBe('c1');
    const cut = event['content'] as string;
    expect(content.startsWith(cut.slice(0, cut.indexOf('…')))).toBe(true);
    expect(cut).toMatch(/…\[cut by the session log: kept \d+ of 15000 chars\]$/);
    expect(cut.length).toBeGreaterThan(2000); // cut to fit, not emptied
    expect(event['truncated']).toEqual({ originalBytes: Buffer.byteLength(JSON.stringify({ ...written, content, truncated: undefined })) + 1, fields: ['/content'] });
    expect(parseSessionLog(fs.readFileSync(w.file))).toEqual({ events: [written], warnings: [] });
  });

  it('cuts the longest strings first and leaves short ones whole', () => {
    const w = open({ maxLineBytes });
    const args = { path: 'short.txt', a: 'x'.repeat(3000), b: 'y'.repeat(6000), note: 'n'.repeat(200) };
    const written = w.append({ type: 'tool/call', id: 'c2', name: 'write', args });
    const { raw } = lastLine(w);
    expect(Buffer.byteLength(raw) + 1).toBeLessThanOrEqual(maxLineBytes);
    const out = written.type === 'tool/call' ? (written.args as Record<string, string>) : {};
    expect(out['path']).toBe('short.txt');
    expect(out['note']).toBe(args.note);
    expect(written.truncated?.fields).toEqual(['/args/a', '/args/b']);
  });

  it('never splits a surrogate pair when cutting', () => {
    const w = open({ maxLineBytes });
    const written = w.append({ type: 'user/message', text: '😀'.repeat(5000) });
    const text = written.type === 'user/message' ? written.text : '';
    const kept = text.slice(0, text.indexOf('…'));
    expect(kept.length % 2).toBe(0);
    expect(kept).toBe('😀'.repeat(kept.length / 2));
    expect(Buffer.byteLength(lastLine(w).raw) + 1).toBeLessThanOrEqual(maxLineBytes);
  });

  it('empties a large field when no long string can be cut, keeping the line a valid event', () => {
    const w = open({ maxLineBytes });
    const args = Array.from({ length: 5000 }, (_, i) => i);
    const written = w.append({ type: 'tool/ptc-dispatch-start', parentId: 'p', id: 'p:ptc:1', tool: 'read', args });
    expect(written).toMatchObject({ type: 'tool/ptc-dispatch-start', parentId: 'p', id: 'p:ptc:1', args: [] });
    expect(written.truncated?.omitted).toEqual(['/args']);
    expect(Buffer.byteLength(lastLine(w).raw) + 1).toBeLessThanOrEqual(maxLineBytes);
    expect(parseSessionLog(fs.readFileSync(w.file)).warnings).toEqual([]);
  });

  it('applies MAX_SESSION_LINE_BYTES by default', () => {
    const w = open();
    const content = 'z'.repeat(MAX_SESSION_LINE_BYTES);
    const written = w.append({ type: 'tool/result', id: 'big', name: 'read', content, isError: false });
    const size = fs.statSync(w.file).size;
    expect(size).toBeLessThanOrEqual(MAX_SESSION_LINE_BYTES);
    expect(size).toBeGreaterThan(MAX_SESSION_LINE_BYTES - 8192);
    expect(written.truncated?.fields).toEqual(['/content']);
  });

  it('keeps writing normal lines after a shrunk one', () => {
    const w = open({ maxLineBytes });
    w.append({ type: 'user/message', text: 'q'.repeat(10_000) });
    w.append({ type: 'user/message', text: 'small' });
    const { events, warnings } = parseSessionLog(fs.readFileSync(w.file));
    expect(warnings).toEqual([]);
    expect(events.map((e) => e.truncated !== undefined)).toEqual([true, false]);
  });
});
