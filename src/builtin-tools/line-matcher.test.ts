import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { HarnessError } from '../errors.js';
import { waitUntil } from '../../test/helpers/wait-until.js';
import { canSpanLines, createLineMatcher } from './line-matcher.js';
import { splitLines } from './read.js';
import { RegexWorkerPool } from './regex-worker-pool.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `(a+)+$` against this line backtracks about 2^40 steps: hours on the main thread. */
const CATASTROPHIC = '(a+)+$';
const HOSTILE_LINE = `${'a'.repeat(40)}b`;

const pool = new RegexWorkerPool();
afterAll(() => pool.close());

/** What grep computed on the host before the worker existed: the reference the worker must equal. */
function hostLineNumbers(text: string, pattern: string, ignoreCase: boolean): number[] {
  const regex = new RegExp(pattern, ignoreCase ? 'i' : '');
  const out: number[] = [];
  splitLines(text).forEach((line, index) => {
    if (regex.test(line)) out.push(index + 1);
  });
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof HarnessError ? error.code : `not a HarnessError: ${String(error)}`;
  }
  return 'resolved';
}

/** Counts setInterval ticks while `promise` is pending: zero ticks means the event loop was blocked. */
async function ticksWhile(promise: Promise<unknown>): Promise<number> {
  let ticks = 0;
  const interval = setInterval(() => ticks++, 5);
  try {
    await promise.catch(() => undefined);
  } finally {
    clearInterval(interval);
  }
  return ticks;
}

describe('createLineMatcher', () => {
  it('ends a catastrophic pattern as TIMEOUT while the host event loop keeps running', async () => {
    const matcher = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 300, pool });
    const pending = matcher.match(`ok\n${HOSTILE_LINE}\n`);
    const ticks = await ticksWhile(pending);
    expect(await codeOf(pending)).toBe('TIMEOUT');
    expect(ticks).toBeGreaterThan(5);
    // The terminated worker was replaced: the pool still matches.
    const next = createLineMatcher({ pattern: 'b$', timeoutMs: 10_000, pool });
    expect(await next.match(`x\n${HOSTILE_LINE}`)).toEqual([2]);
  });

  it('stops backreference and lookahead patterns too (which no linear-time fallback of V8 handles)', async () => {
    for (const pattern of ['(a+)+\\1$', '^(a+)+(?=b)c']) {
      const matcher = createLineMatcher({ pattern, timeoutMs: 200, pool });
      expect({ pattern, code: await codeOf(matcher.match(HOSTILE_LINE)) }).toEqual({ pattern, code: 'TIMEOUT' });
    }
  });

  it('counts the deadline over the whole call: after it passed, every further match is TIMEOUT', async () => {
    const matcher = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 200, pool });
    expect(await codeOf(matcher.match(HOSTILE_LINE))).toBe('TIMEOUT');
    expect(await codeOf(matcher.match('aaa'))).toBe('TIMEOUT');
    expect(await codeOf(matcher.matchMany(['aaa', 'b']))).toBe('TIMEOUT');
  });

  it('stops a running match with ABORTED when the signal aborts, and refuses later ones', async () => {
    const controller = new AbortController();
    const matcher = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 60_000, signal: controller.signal, pool });
    const pending = matcher.match(HOSTILE_LINE);
    let ticks = 0;
    // Abort from a timer callback: it can only run because the match is not on this thread.
    const interval = setInterval(() => {
      if (++ticks === 10) controller.abort();
    }, 5);
    try {
      expect(await codeOf(pending)).toBe('ABORTED');
    } finally {
      clearInterval(interval);
    }
    expect(await codeOf(matcher.match('aaa'))).toBe('ABORTED');
  });

  it('gives ABORTED at once for a signal aborted before the call, and after close()', async () => {
    const matcher = createLineMatcher({ pattern: 'a', signal: AbortSignal.abort(), pool });
    expect(await codeOf(matcher.match('a'))).toBe('ABORTED');
    const closing = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 60_000, pool });
    const running = closing.match(HOSTILE_LINE);
    closing.close();
    expect(await codeOf(running)).toBe('ABORTED');
    expect(await codeOf(closing.match('a'))).toBe('ABORTED');
  });

  it('refuses an invalid pattern with INVALID_ARGS before any worker runs', () => {
    let code = 'none';
    try {
      createLineMatcher({ pattern: 'foo(', pool });
    } catch (error) {
      code = error instanceof HarnessError ? error.code : 'other';
    }
    expect(code).toBe('INVALID_ARGS');
  });

  it('finds exactly the lines the host-side RegExp finds', async () => {
    const texts = [
      '',
      '\n',
      'a',
      'a\n',
      'a\n\n',
      '\n\na\n',
      'one\r\ntwo\r\n\r\nthree',
      'cr only\r',
      'two crs\r\r\n',
      'Ünïcödé λ\n😀 emoji\nplain\n',
      'TODO: x\nfixme later\nFIXME now\ntodo\n',
      'no final newline\nTODO',
      `${'x'.repeat(10_000)}TODO\nshort`,
    ];
    const cases: Array<{ pattern: string; ignoreCase: boolean }> = [
      { pattern: 'TODO|FIXME', ignoreCase: false },
      { pattern: 'todo|fixme', ignoreCase: true },
      { pattern: '^$', ignoreCase: false },
      { pattern: '\\r', ignoreCase: false },
      { pattern: '.$', ignoreCase: false },
      { pattern: 'λ|\\u{1F600}', ignoreCase: false },
      { pattern: 'ü', ignoreCase: true },
      { pattern: 'a', ignoreCase: false },
      { pattern: '^', ignoreCase: false },
    ];
    for (const { pattern, ignoreCase } of cases) {
      const matcher = createLineMatcher({ pattern, ignoreCase, timeoutMs: 10_000, pool });
      const many = await matcher.matchMany(texts);
      const one = await Promise.all(texts.map((text) => matcher.match(text)));
      const expected = texts.map((text) => hostLineNumbers(text, pattern, ignoreCase));
      expect({ pattern, many }).toEqual({ pattern, many: expected });
      expect({ pattern, one }).toEqual({ pattern, one: expected });
    }
  });

  it('stops after maxMatches in total over the texts of one call', async () => {
    const matcher = createLineMatcher({ pattern: 'x', timeoutMs: 10_000, pool });
    expect(await matcher.match('x\ny\nx\nx\nx', { maxMatches: 2 })).toEqual([1, 3]);
    expect(await matcher.matchMany(['x\nx', 'x\nx', 'x'], { maxMatches: 3 })).toEqual([[1, 2], [1], []]);
    expect(await matcher.match('x', { maxMatches: 0 })).toEqual([]);
  });

  it('finishes a normal match while a catastrophic one occupies another worker', async () => {
    const controller = new AbortController();
    const hostile = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 60_000, signal: controller.signal, pool });
    let hostileSettled = false;
    const stuck = hostile.match(HOSTILE_LINE).finally(() => {
      hostileSettled = true;
    });
    const normal = createLineMatcher({ pattern: 'needle', timeoutMs: 60_000, pool });
    const texts = Array.from({ length: 50 }, (_, i) => `hay\n${i % 7 === 0 ? 'needle' : 'hay'}\nhay`);
    const found = await normal.matchMany(texts);
    expect(hostileSettled).toBe(false);
    expect(found).toEqual(texts.map((text) => hostLineNumbers(text, 'needle', false)));
    controller.abort();
    expect(await codeOf(stuck)).toBe('ABORTED');
  });

  it('runs many concurrent matches from many matchers correctly', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => Array.from({ length: 20 }, (_, j) => `line ${i} ${j}${j === i % 20 ? ' hit' : ''}`).join('\n'));
    const matchers = Array.from({ length: 8 }, () => createLineMatcher({ pattern: 'hit$', timeoutMs: 60_000, pool }));
    const results = await Promise.all(texts.map((text, i) => (matchers[i % matchers.length] as (typeof matchers)[number]).match(text)));
    expect(results).toEqual(texts.map((_, i) => [(i % 20) + 1]));
    expect(pool.workerCount).toBeLessThanOrEqual(4);
  });

  it('ends the workers beyond the warm count once they have been idle', async () => {
    const small = new RegexWorkerPool({ warmWorkers: 1, maxWorkers: 3, idleMs: 50 });
    try {
      const matcher = createLineMatcher({ pattern: 'x', timeoutMs: 60_000, pool: small });
      const results = await Promise.all(Array.from({ length: 30 }, () => matcher.match('a\nx')));
      expect(results).toEqual(Array.from({ length: 30 }, () => [2]));
      expect(small.workerCount).toBeGreaterThan(1);
      await waitUntil('the idle extra workers ended', () => small.workerCount === 1);
      expect(await matcher.match('x')).toEqual([1]);
    } finally {
      await small.close();
    }
  });

  it('never keeps the process alive: a node process that matched exits on its own', async () => {
    const register = pathToFileURL(path.join(root, 'scripts/ts-register.mjs')).href;
    const moduleUrl = pathToFileURL(path.join(root, 'src/builtin-tools/line-matcher.ts')).href;
    const script = [
      `import { createLineMatcher } from ${JSON.stringify(moduleUrl)};`,
      `const matcher = createLineMatcher({ pattern: 'b', timeoutMs: 20000 });`,
      `const lines = await matcher.matchMany(['a\\nb', 'b\\nb\\na']);`,
      // Enough at once to start workers beyond the warm count, whose idle timers must not hold the process.
      `await Promise.all(Array.from({ length: 8 }, () => matcher.match('b')));`,
      `const hostile = createLineMatcher({ pattern: ${JSON.stringify(CATASTROPHIC)}, timeoutMs: 200 });`,
      `const code = await hostile.match(${JSON.stringify(HOSTILE_LINE)}).then(() => 'resolved', (e) => e.code);`,
      'console.log(JSON.stringify({ lines, code }));',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', register, '--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A bound, not a timing claim: a child the pool keeps alive is killed here and the test fails.
      timeout: 20_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    expect({ exit, stderr }).toEqual({ exit: { code: 0, signal: null }, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ lines: [[2], [1, 2]], code: 'TIMEOUT' });
  });
});

describe('canSpanLines', () => {
  it('says no only for patterns that can neither consume a line break nor look past one', () => {
    for (const pattern of ['TODO', 'a.*b', '^\\w+\\d$', '\\bfoo\\B', '[a-z]+', 'x{2,3}|y', '\\.\\*\\(', '\\t', '(?:ab)+', '(?<name>a)']) {
      expect({ pattern, spans: canSpanLines(pattern) }).toEqual({ pattern, spans: false });
    }
    for (const pattern of ['a\\sb', '\\S', '\\D', '\\W', '\\n', '\\r', '\\x0a', '\\u000a', '\\12', '(a)\\1', '\\cJ', '[^x]', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', 'a\nb', '[\u0001-z]']) {
      expect({ pattern, spans: canSpanLines(pattern) }).toEqual({ pattern, spans: true });
    }
  });
});
