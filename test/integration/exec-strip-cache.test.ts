// `ptc exec` remembers a program's type strip by its whole source (src/cli/strip-cache.ts). A hit is
// shown by editing the remembered code: only the cache can make the program return 2.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PTC_BIN } from '../helpers/run-ptc.js';

let base: string;
beforeAll(() => void (base = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-exec-strip-'))));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('the strip cache of ptc exec', () => {
  it('strips a program once, uses the remembered strip for the same source, and not with PTC_NO_OUTPUT_CACHE=1', () => {
    const ws = path.join(base, 'ws');
    const ptcHome = path.join(base, 'ptc-home');
    fs.mkdirSync(ws);
    const ptc = (extraEnv: Record<string, string> = {}) => {
      const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, PTC_HOME: ptcHome, ...extraEnv };
      const run = spawnSync(process.execPath, [PTC_BIN, 'exec', 'p.ts'], { cwd: ws, env, encoding: 'utf8' });
      return { code: run.status, stdout: run.stdout };
    };
    const dir = path.join(ptcHome, 'cache', 'strip');
    const entries = () => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : []);

    fs.writeFileSync(path.join(ws, 'p.ts'), 'const n: number = 1;\nreturn n;\n');
    expect(ptc()).toEqual({ code: 0, stdout: '1\n' });
    expect(entries()).toHaveLength(1);
    const file = path.join(dir, entries()[0]!);
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { code: string };
    expect(entry.code).not.toContain(': number');
    fs.writeFileSync(file, JSON.stringify({ ...entry, code: entry.code.replace('return n', 'return n + 1') }));
    expect(ptc()).toEqual({ code: 0, stdout: '2\n' });
    expect(ptc({ PTC_NO_OUTPUT_CACHE: '1' })).toEqual({ code: 0, stdout: '1\n' });

    // A program with a syntax error is reported as always and remembered by no one.
    fs.writeFileSync(path.join(ws, 'p.ts'), 'return (;\n');
    const broken = ptc();
    expect(broken.code).toBe(1);
    expect(entries()).toHaveLength(1);
    // Another program is a miss: stripped, and remembered beside the first.
    fs.writeFileSync(path.join(ws, 'p.ts'), 'const s: string = "x";\nreturn s;\n');
    expect(ptc()).toEqual({ code: 0, stdout: 'x\n' });
    expect(entries()).toHaveLength(2);
  });
});
