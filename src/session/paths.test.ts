import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { assertSessionId, listSessionFiles, newSessionId, resolveSessionDir, sessionFilePath } from './paths.js';

describe('resolveSessionDir', () => {
  const base = { cwd: '/work/project', homedir: '/home/ana' };

  it('uses --session-dir over PTC_HOME and the home directory', () => {
    expect(resolveSessionDir({ ...base, sessionDir: '/logs/here', env: { PTC_HOME: '/opt/ptc' } })).toBe('/logs/here');
  });

  it('resolves a relative --session-dir against cwd and expands a leading ~/', () => {
    expect(resolveSessionDir({ ...base, sessionDir: 'logs', env: {} })).toBe('/work/project/logs');
    expect(resolveSessionDir({ ...base, sessionDir: '~/logs', env: {} })).toBe('/home/ana/logs');
  });

  it('uses $PTC_HOME/sessions without a flag', () => {
    expect(resolveSessionDir({ ...base, env: { PTC_HOME: '/opt/ptc' } })).toBe('/opt/ptc/sessions');
    expect(resolveSessionDir({ ...base, sessionDir: undefined, env: { PTC_HOME: 'rel' } })).toBe('/work/project/rel/sessions');
  });

  it('falls back to ~/.ptc/sessions, treating empty values as unset', () => {
    expect(resolveSessionDir({ ...base, env: {} })).toBe('/home/ana/.ptc/sessions');
    expect(resolveSessionDir({ ...base, sessionDir: '', env: { PTC_HOME: '' } })).toBe('/home/ana/.ptc/sessions');
  });

  it('defaults to the real home directory', () => {
    expect(resolveSessionDir({ env: {} })).toBe(path.join(os.homedir(), '.ptc', 'sessions'));
  });
});

describe('newSessionId', () => {
  it('is the UTC time plus six base32 characters', () => {
    const id = newSessionId(new Date('2026-11-29T14:15:30.999Z'));
    expect(id).toMatch(/^20261129-141530-[0-9a-hjkmnp-tv-z]{6}$/);
    expect(() => assertSessionId(id)).not.toThrow();
  });

  it('sorts by time', () => {
    const times = ['2026-01-02T00:00:00Z', '2026-01-02T00:00:01Z', '2026-10-01T09:59:59Z', '2027-01-01T00:00:00Z'];
    const ids = times.map((t) => newSessionId(new Date(t)));
    expect([...ids].reverse().sort()).toEqual(ids);
  });
});

describe('session ids and files', () => {
  it('refuses ids that are not plain file names', () => {
    for (const bad of ['', '../x', 'a/b', '.hidden', '-x', 'a b', 'x'.repeat(129)]) {
      expect(() => assertSessionId(bad), bad).toThrow(ConfigError);
    }
    expect(sessionFilePath('/d', 'abc')).toBe('/d/abc.jsonl');
  });

  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-paths-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists only .jsonl files, sorted by id, and nothing for a missing directory', () => {
    for (const name of ['b.jsonl', 'a.jsonl', 'notes.txt', '.jsonl']) fs.writeFileSync(path.join(dir, name), '');
    expect(listSessionFiles(dir)).toEqual([
      { id: 'a', file: path.join(dir, 'a.jsonl') },
      { id: 'b', file: path.join(dir, 'b.jsonl') },
    ]);
    expect(listSessionFiles(path.join(dir, 'missing'))).toEqual([]);
  });
});
