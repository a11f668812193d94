// grep's regex figures for `npm run bench`: what matching in a worker thread costs against matching on
// the main thread for a typical search, how soon a catastrophic pattern is stopped after its deadline,
// and whether a normal search still finishes while one runs (docs/grep-regex.md).

import { splitLines } from '../src/builtin-tools/read.js';
import { createLineMatcher } from '../src/builtin-tools/line-matcher.js';
import { RegexWorkerPool } from '../src/builtin-tools/regex-worker-pool.js';
import { median } from './median.js';

const FILES = 200;
const LINES_PER_FILE = 200;
const PATTERN = '\\b(TODO|FIXME)\\b';
const CATASTROPHIC = '(a+)+$';
const HOSTILE_LINE = `${'a'.repeat(40)}b`;
const DEADLINE_MS = 100;

function sourceLikeTexts(): string[] {
  return Array.from({ length: FILES }, (_, f) =>
    Array.from({ length: LINES_PER_FILE }, (_, l) =>
      (f * LINES_PER_FILE + l) % 97 === 0 ? `  // TODO: revisit item ${l} of file ${f}` : `  const value${l} = compute(input${f}, ${l}); // line ${l}`,
    ).join('\n') + '\n',
  );
}

function mainThread(texts: readonly string[]): number {
  const regex = new RegExp(PATTERN);
  let found = 0;
  for (const text of texts) for (const line of splitLines(text)) if (regex.test(line)) found++;
  return found;
}

async function timed(samples: number, body: () => Promise<unknown> | unknown): Promise<number> {
  await body();
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await body();
    out.push(performance.now() - start);
  }
  return median(out);
}

/** Rows of `| measurement | median | ratio |` for bench/RESULTS.md. */
export async function grepRegexRows(samples: number): Promise<string[][]> {
  const texts = sourceLikeTexts();
  const pool = new RegexWorkerPool();
  const rows: string[][] = [];
  const shape = `${FILES} files x ${LINES_PER_FILE} lines`;
  try {
    const coldStart = performance.now();
    await createLineMatcher({ pattern: 'x', pool }).match('x');
    const coldMs = performance.now() - coldStart;

    const mainMs = await timed(samples, () => mainThread(texts));
    const perFileMs = await timed(samples, async () => {
      const matcher = createLineMatcher({ pattern: PATTERN, pool });
      for (const text of texts) await matcher.match(text);
    });
    const batchMs = await timed(samples, () => createLineMatcher({ pattern: PATTERN, pool }).matchMany(texts));
    rows.push([`grep regex, ${shape}, main thread (before)`, `${mainMs.toFixed(2)} ms`, '1.00 (baseline of this block)']);
    rows.push([`grep regex, ${shape}, worker, one match() per file`, `${perFileMs.toFixed(2)} ms`, (perFileMs / mainMs).toFixed(2)]);
    rows.push([`grep regex, ${shape}, worker, one matchMany() batch`, `${batchMs.toFixed(2)} ms`, (batchMs / mainMs).toFixed(2)]);
    rows.push(['grep regex, first match on a cold pool (worker start)', `${coldMs.toFixed(1)} ms`, '']);

    const lateness: number[] = [];
    for (let i = 0; i < Math.min(samples, 10); i++) {
      const start = performance.now();
      await createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: DEADLINE_MS, pool })
        .match(HOSTILE_LINE)
        .catch(() => undefined);
      lateness.push(performance.now() - start - DEADLINE_MS);
    }
    rows.push([`grep regex, catastrophic pattern: deadline (${DEADLINE_MS} ms) to TIMEOUT`, `${median(lateness).toFixed(1)} ms`, '']);

    const aloneMs = await timed(samples, () => createLineMatcher({ pattern: PATTERN, pool }).matchMany(texts));
    const controller = new AbortController();
    const hostile = createLineMatcher({ pattern: CATASTROPHIC, timeoutMs: 600_000, signal: controller.signal, pool })
      .match(HOSTILE_LINE)
      .catch(() => undefined);
    const beside = await timed(samples, () => createLineMatcher({ pattern: PATTERN, pool }).matchMany(texts));
    controller.abort();
    await hostile;
    rows.push([
      `grep regex, ${shape} batch while a catastrophic match runs in another worker`,
      `${beside.toFixed(2)} ms`,
      `${(beside / aloneMs).toFixed(2)} (to the same batch alone)`,
    ]);
  } finally {
    await pool.close();
  }
  return rows;
}
