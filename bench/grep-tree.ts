// `grep` on a large tree against GNU `grep -rn` in the same run (issue 11; docs/file-tools.md): a
// temporary tree of about 50,000 source-like files in nested directories, some binary files, and
// `.gitignore` files that exclude part of it. Both tools run over a warm page cache; each figure is the
// median of a few timed runs, the ratio is ours over GNU grep's.
// Run alone: `node --import ./scripts/ts-register.mjs bench/grep-tree.ts`.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createGrepTool, type GrepArgs, type GrepOutput } from '../src/builtin-tools/grep.js';
import { resolveWorkspacePolicy } from '../src/sandbox/index.js';
import type { ToolExecContext } from '../src/tools/types.js';
import { median } from './median.js';

const FILES = Number(process.env['BENCH_GREP_FILES'] ?? 50_000);
const SAMPLES = Number(process.env['BENCH_GREP_SAMPLES'] ?? 5);
/** A literal that occurs on about 10,000 lines of the tree. */
const LITERAL = 'retryBudget';
/** A regex with alternation, word boundaries and a counted class (ERE and JavaScript alike). */
const REGEX = '\\b(TODO|FIXME)\\b.*[0-9]{3}';

const exec: ToolExecContext = { signal: new AbortController().signal, callId: 'bench', deferContext() {} };

/** A small deterministic generator (xorshift32), so every run builds the same tree. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

const WORDS = [
  'config', 'request', 'handler', 'buffer', 'index', 'value', 'result', 'options', 'stream', 'cache', 'token',
  'parser', 'client', 'server', 'record', 'entry', 'limit', 'offset', 'signal', 'payload', 'session', 'schema',
  'retry', 'budget', 'worker', 'queue', 'state', 'event', 'listener', 'module', 'factory', 'context', 'scope',
];

function identifier(next: () => number): string {
  const a = WORDS[Math.floor(next() * WORDS.length)] as string;
  const b = WORDS[Math.floor(next() * WORDS.length)] as string;
  return a + b.charAt(0).toUpperCase() + b.slice(1);
}

/** One line of TypeScript-like source. */
function sourceLine(next: () => number, n: number): string {
  const r = next();
  const id = identifier(next);
  if (r < 0.08) return `// ${next() < 0.15 ? 'TODO' : 'note'}: check ${id} against ${identifier(next)} (${Math.floor(next() * 5000)})`;
  if (r < 0.14) return `import { ${id}, ${identifier(next)} } from './${identifier(next)}.js';`;
  if (r < 0.22) return `export function ${id}(${identifier(next)}: number, ${identifier(next)}: string): boolean {`;
  if (r < 0.3) return '}';
  if (r < 0.36) return '';
  if (r < 0.5) return `  if (${id} > ${n}) return ${identifier(next)}(${Math.floor(next() * 100)});`;
  if (r < 0.75) return `  const ${id} = await ${identifier(next)}.${identifier(next)}(${identifier(next)}, ${n});`;
  return `  ${id}.push({ ${identifier(next)}: ${Math.floor(next() * 1000)}, ${identifier(next)}: '${identifier(next)}' });`;
}

function sourceFile(next: () => number): string {
  const lines = 10 + Math.floor(next() * 110);
  let text = '';
  for (let n = 1; n <= lines; n++) text += `${sourceLine(next, n)}\n`;
  return text;
}

export interface GrepTree {
  readonly root: string;
  readonly files: number;
  readonly bytes: number;
  /** Files under an ignored directory or matching an ignore pattern. */
  readonly ignoredFiles: number;
}

/**
 * Builds the tree: `pkgN/src/modM/fileK.ts` in 25 x 20 directories, a few `generated/` and `build/`
 * directories and `*.log` files that `.gitignore` files (the root's and one per package) exclude, and
 * one binary file in a hundred.
 */
export function buildGrepTree(files = FILES): GrepTree {
  const root = mkdtempSync(join(tmpdir(), 'ptc-bench-grep-tree-'));
  const next = random(0x5eed);
  writeFileSync(join(root, '.gitignore'), '# build output\nbuild/\n*.log\n!keep.log\n/dist\n');
  let bytes = 0;
  let ignoredFiles = 0;
  const packages = 25;
  const modules = 20;
  const perDir = Math.max(1, Math.round(files / (packages * modules)));
  let written = 0;
  for (let p = 0; p < packages; p++) {
    const pkg = join(root, `pkg${p}`);
    mkdirSync(pkg);
    writeFileSync(join(pkg, '.gitignore'), 'generated/\n*.snap\n');
    for (let m = 0; m < modules && written < files; m++) {
      // About one directory in nine holds ignored output instead of sources.
      const kind = m % 9 === 4 ? 'build' : m % 9 === 7 ? 'src/generated' : 'src';
      const dir = join(pkg, kind, `mod${m}`);
      mkdirSync(dir, { recursive: true });
      for (let k = 0; k < perDir && written < files; k++, written++) {
        let name = `file${k}.ts`;
        let data: string | Buffer;
        if (k % 100 === 42) {
          name = `image${k}.png`;
          data = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(next() * 256)));
          data[10] = 0;
        } else {
          if (k % 50 === 17) name = `trace${k}.log`;
          data = sourceFile(next);
          if (k % 23 === 5) data += `  const retryBudget = ${k}; // keep\n`;
        }
        if (kind !== 'src' || name.endsWith('.log')) ignoredFiles++;
        writeFileSync(join(dir, name), data);
        bytes += data.length;
      }
    }
  }
  return { root, files: written, bytes, ignoredFiles };
}

/** GNU grep's wall time, its output read through a pipe (it stops at the first match when stdout is /dev/null). */
function gnuGrep(root: string, pattern: string, extended: boolean): Promise<{ ms: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('grep', ['-rn', extended ? '-E' : '-F', '--', pattern, '.'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`grep exited with ${code}`));
      else resolve({ ms: performance.now() - start, lines });
    });
  });
}

async function ours(root: string, args: GrepArgs): Promise<{ ms: number; output: GrepOutput }> {
  const tool = createGrepTool({ policy: resolveWorkspacePolicy({ cwd: root }) });
  const start = performance.now();
  const output = await tool.execute(args, exec);
  return { ms: performance.now() - start, output };
}

/** Rows `[measurement, median, ratio]`; ratios are to GNU `grep -rn` measured in the same run, in turns with ours. */
export async function grepTreeRows(): Promise<string[][]> {
  const tree = buildGrepTree();
  try {
    const shape = `${tree.files.toLocaleString('en-US')} files, ${(tree.bytes / 1024 / 1024).toFixed(0)} MiB`;
    const rows: string[][] = [];
    for (const [label, pattern, extended] of [
      ['literal', LITERAL, false],
      ['regex', REGEX, true],
    ] as const) {
      // One round first warms the page cache, the worker threads and the JIT for all three.
      let gnuLast = await gnuGrep(tree.root, pattern, extended);
      let allLast = await ours(tree.root, { pattern, no_ignore: true });
      await ours(tree.root, { pattern });
      const gnuMs: number[] = [];
      const allMs: number[] = [];
      const ignoringMs: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        gnuLast = await gnuGrep(tree.root, pattern, extended);
        gnuMs.push(gnuLast.ms);
        allLast = await ours(tree.root, { pattern, no_ignore: true });
        allMs.push(allLast.ms);
        ignoringMs.push((await ours(tree.root, { pattern })).ms);
      }
      const gnu = median(gnuMs);
      const all = median(allMs);
      const ignoring = median(ignoringMs);
      rows.push([`grep ${label} \`${pattern}\` over ${shape}: GNU \`grep -rn\` (baseline; ${gnuLast.lines} lines)`, `${gnu.toFixed(0)} ms`, '1.00']);
      rows.push([
        `grep ${label}: \`grep\` tool, no_ignore (the same files; ${allLast.output.totalMatches} matches)`,
        `${all.toFixed(0)} ms`,
        (all / gnu).toFixed(2),
      ]);
      rows.push([
        `grep ${label}: \`grep\` tool, .gitignore respected (${tree.ignoredFiles.toLocaleString('en-US')} files ignored)`,
        `${ignoring.toFixed(0)} ms`,
        (ignoring / gnu).toFixed(2),
      ]);
    }
    return rows;
  } finally {
    rmSync(tree.root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load = loadavg()[0] ?? 0;
  for (const row of await grepTreeRows()) console.log(`| ${row.join(' | ')} |`);
  console.log(`load average ${load.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end`);
}
