// Issue 8, item 2: the host-side file tools must never read or write outside the policy while the
// program swaps paths under them (docs/file-tools.md). Each case races a symlink flipper against one
// tool for RACE_CALLS calls, ten at a time, and asserts no secret byte or name came back and nothing
// appeared or changed outside. read and write race a real program in the bwrap sandbox whose Worker
// flips the links; edit, glob and grep race a Worker thread of this test process. Every case also
// asserts that the flipper really raced (the tool saw both states), so none can pass vacuously.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createFileTools } from '../../src/builtin-tools/index.js';
import { createHarness } from '../../src/harness.js';
import { resolveWorkspacePolicy } from '../../src/sandbox/workspace-policy.js';
import type { AnyToolDefinition, ToolExecContext } from '../../src/tools/types.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const RACE_CALLS = 5_000;
const WIDTH = 10;
const SECRET = 'TOP-SECRET-c41b7e';
const SECRET_NAME = 'SECRET-NAME-5d2a.txt';
// A tmpfs where there is one: write and edit fsync every file, which on a disk makes 5,000 serial writes
// take half a minute. The race does not depend on the filesystem.
const BASE_DIR = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(BASE_DIR, 'ptc-races-'));
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  // Same names as the workspace's own files, so a tool that re-opens a path by name finds these.
  writeFileSync(join(outside, 'dir', 'inner.txt'), `${SECRET}\n`);
  writeFileSync(join(outside, 'dir', SECRET_NAME), `${SECRET}\n`);
  writeFileSync(join(outside, 'dir', 'victim.txt'), 'OLD\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every file under `dir` with its contents: what "nothing changed outside" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = join(entry.parentPath, entry.name);
    out[full] = entry.isFile() ? readFileSync(full, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

/**
 * Flipper code (plain JS, `fs` and `ws` in scope) that swaps the workspace directory `name` for a symlink
 * to `targetExpr` and back to a fresh directory (filled by `fill`, which writes into `ws + '/t'`). A
 * directory cannot be renamed over, so each swap moves the old one aside first; `rmSync` removes a
 * symlink itself, never what it points to.
 */
function swapDir(name: string, targetExpr: string, fill: string): string {
  const at = `ws + '/${name}'`;
  return `try { fs.symlinkSync(${targetExpr}, ws + '/l'); } catch {}
    try { fs.renameSync(${at}, ws + '/old'); } catch {}
    try { fs.renameSync(ws + '/l', ${at}); } catch {}
    try { fs.rmSync(ws + '/old', { recursive: true, force: true }); } catch {}
    try { fs.mkdirSync(ws + '/t'); } catch {}
    try { ${fill} } catch {}
    try { fs.renameSync(${at}, ws + '/old'); } catch {}
    try { fs.renameSync(ws + '/t', ${at}); } catch {}
    try { fs.rmSync(ws + '/old', { recursive: true, force: true }); } catch {}`;
}

interface Counts {
  readonly ok: number;
  readonly denied: number;
  readonly other: number;
  readonly leaks?: number;
}

describe.skipIf(skipWithoutBwrap)('file tools against a program that flips symlinks from a Worker (bwrap)', () => {
  const harnesses: { dispose(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const harness of harnesses) await harness.dispose();
  });

  /** Runs `body` as a program whose Worker runs `flip` (plain JS, `fs` and `ws` in scope) until the body ends. The
   * program's Worker is an ES module there, hence the dynamic imports. */
  async function raceInProgram(flip: string, body: string): Promise<Counts> {
    const harness = await createHarness({ cwd: ws, preset: 'ptc', sandbox: 'required', timeoutMs: 240_000 });
    harnesses.push(harness);
    const code = [
      "const { Worker } = await import('node:worker_threads');",
      'const ws = process.cwd();',
      `const flipper = new Worker(${JSON.stringify(`(async () => { const fs = await import('node:fs'); const { workerData: ws } = await import('node:worker_threads'); for (;;) { ${flip} } })();`)}, { eval: true, workerData: ws });`,
      'try {',
      body,
      '} finally {',
      '  await flipper.terminate();',
      '}',
    ].join('\n');
    const result = await harness.tools.execute('run_code', { code, description: 'race the file tools' });
    expect(result.error, result.content).toBeUndefined();
    return (result.value as unknown as { result: Counts }).result;
  }

  it(`read never returns the outside file while a Worker flips the path (${RACE_CALLS} calls)`, async () => {
    const before = snapshot(outside);
    const counts = await raceInProgram(
      `try { fs.symlinkSync(${JSON.stringify(join(outside, 'secret.txt'))}, ws + '/l'); fs.renameSync(ws + '/l', ws + '/f'); } catch {}
       try { fs.writeFileSync(ws + '/t', 'inside'); fs.renameSync(ws + '/t', ws + '/f'); } catch {}`,
      `const counts = { ok: 0, denied: 0, other: 0, leaks: 0 };
       for (let i = 0; i < ${RACE_CALLS}; i += ${WIDTH}) {
         await Promise.all(Array.from({ length: ${WIDTH} }, () => tools.read({ path: 'f' }).then(
           (r) => { counts.ok++; if (JSON.stringify(r).includes(${JSON.stringify(SECRET)})) counts.leaks++; },
           (e) => { if (String(e).includes(${JSON.stringify(SECRET)})) counts.leaks++; if (e.code === 'PERMISSION_DENIED') counts.denied++; else counts.other++; },
         )));
       }
       return counts;`,
    );
    expect(counts.leaks).toBe(0);
    expect(counts.ok + counts.denied + counts.other).toBe(RACE_CALLS);
    expect(counts.ok, 'the tool saw the regular file').toBeGreaterThan(0);
    expect(counts.denied, 'the tool saw the symlink').toBeGreaterThan(0);
    expect(snapshot(outside)).toEqual(before);
  });

  it(`write never creates or changes anything outside while a Worker flips a directory (${RACE_CALLS} calls)`, async () => {
    const before = snapshot(outside);
    const counts = await raceInProgram(
      swapDir('d', JSON.stringify(join(outside, 'dir')), ''),
      `const counts = { ok: 0, denied: 0, other: 0 };
       for (let i = 0; i < ${RACE_CALLS}; i += ${WIDTH}) {
         await Promise.all(Array.from({ length: ${WIDTH} }, (_, k) => tools.write({ path: k % 2 ? 'd/victim.txt' : 'd/x.txt', content: 'pwned' }).then(
           () => { counts.ok++; },
           (e) => { if (e.code === 'PERMISSION_DENIED') counts.denied++; else counts.other++; },
         )));
       }
       return counts;`,
    );
    expect(snapshot(outside)).toEqual(before);
    expect(counts.ok + counts.denied + counts.other).toBe(RACE_CALLS);
    expect(counts.ok, 'the tool saw the directory').toBeGreaterThan(0);
    expect(counts.denied, 'the tool saw the symlink').toBeGreaterThan(0);
  });
});

describe('file tools against a Worker of the host that flips symlinks', () => {
  const exec: ToolExecContext = { signal: new AbortController().signal, callId: 'race', deferContext() {} };

  function tool(name: string): AnyToolDefinition {
    const found = createFileTools({ policy: resolveWorkspacePolicy({ cwd: ws }) }).find((t) => t.name === name);
    if (!found) throw new Error(`no ${name} tool`);
    return found;
  }

  /** Calls `call(i)` RACE_CALLS times, WIDTH at a time, while a Worker runs `flip` (`fs`, `ws`, `outside` in scope). */
  async function race(flip: string, call: (i: number) => Promise<unknown>): Promise<{ values: unknown[]; errors: unknown[] }> {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const fs = require('node:fs'); const { workerData } = require('node:worker_threads');
       const { ws, outside, stop } = workerData;
       while (Atomics.load(stop, 0) === 0) { ${flip} }`,
      { eval: true, workerData: { ws, outside, stop } },
    );
    const values: unknown[] = [];
    const errors: unknown[] = [];
    try {
      for (let i = 0; i < RACE_CALLS; i += WIDTH) {
        await Promise.all(
          Array.from({ length: WIDTH }, (_, k) =>
            call(i + k).then(
              (value) => void values.push(value),
              (error: unknown) => void errors.push(error),
            ),
          ),
        );
      }
    } finally {
      Atomics.store(stop, 0, 1);
      await new Promise((resolve) => worker.once('exit', resolve));
    }
    return { values, errors };
  }

  const flipDir = swapDir('g', "outside + '/dir'", "fs.writeFileSync(ws + '/t/inner.txt', 'inside\\n'); fs.writeFileSync(ws + '/t/victim.txt', 'OLD\\n');");
  const flipFile = `try { fs.symlinkSync(outside + '/dir/victim.txt', ws + '/l2'); fs.renameSync(ws + '/l2', ws + '/e.txt'); } catch {}
    try { fs.writeFileSync(ws + '/t2', 'OLD\\n'); fs.renameSync(ws + '/t2', ws + '/e.txt'); } catch {}`;
  const code = (error: unknown): unknown => (error as { code?: unknown }).code;

  it(`edit never changes a file outside (${RACE_CALLS} calls, a flipped file and a flipped directory)`, async () => {
    const before = snapshot(outside);
    const edit = tool('edit');
    const { values, errors } = await race(`${flipDir}\n${flipFile}`, (i) =>
      Promise.resolve(edit.execute({ path: i % 2 ? 'e.txt' : 'g/victim.txt', old_string: 'OLD', new_string: 'NEW' } as never, exec)),
    );
    expect(snapshot(outside)).toEqual(before);
    expect(values.length, 'edits that succeeded inside').toBeGreaterThan(0);
    expect(errors.filter((e) => code(e) === 'PERMISSION_DENIED').length, 'edits refused at a symlink').toBeGreaterThan(0);
  });

  it(`glob never lists a name from outside (${RACE_CALLS} calls)`, async () => {
    writeFileSync(join(ws, 'top.txt'), 'inside\n');
    const glob = tool('glob');
    const { values, errors } = await race(flipDir, () => Promise.resolve(glob.execute({ pattern: '**/*' } as never, exec)));
    const listed = values.map((value) => JSON.stringify(value));
    expect(listed.filter((text) => text.includes(SECRET_NAME))).toEqual([]);
    expect(errors.map((error) => String(error)).filter((text) => text.includes(SECRET_NAME))).toEqual([]);
    expect(listed.some((text) => text.includes('g/inner.txt')), 'glob saw the directory').toBe(true);
    expect(listed.some((text) => !text.includes('g/inner.txt')), 'glob saw the symlink').toBe(true);
  });

  it(`grep never returns a line from outside (${RACE_CALLS} calls, directory walks and a single file)`, async () => {
    const grep = tool('grep');
    const { values, errors } = await race(`${flipDir}\n${flipFile}`, (i) =>
      Promise.resolve(grep.execute((i % 2 ? { pattern: '.' } : { pattern: '.', path: 'e.txt' }) as never, exec)),
    );
    const found = values.map((value) => JSON.stringify(value));
    expect(found.filter((text) => text.includes(SECRET))).toEqual([]);
    expect(errors.map((error) => String(error)).filter((text) => text.includes(SECRET))).toEqual([]);
    expect(found.some((text) => text.includes('g/inner.txt')), 'grep searched the directory').toBe(true);
    expect(errors.some((e) => code(e) === 'PERMISSION_DENIED'), 'grep was refused at the symlinked file').toBe(true);
  });
});
