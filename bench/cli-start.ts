// Start-up of the built `ptc` command as users run it (dist/cli/main.js, issue 11): `ptc --help`,
// `ptc --version`, `ptc tools` and a trivial `ptc exec`, each as a median wall time and a ratio to
// `node -e 0` measured in the same run, in turns so load drifts hit every command alike. Also two
// counts that load does not blur: the modules `ptc --help` loads, and the processes a trivial
// `ptc exec` starts (when strace is installed). Build first: `npm run build`.
// Run alone: `node --import ./scripts/ts-register.mjs bench/cli-start.ts`.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const SAMPLES = Number(process.env['BENCH_CLI_SAMPLES'] ?? 11);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'dist/cli/main.js');

interface Measured {
  readonly label: string;
  readonly args: readonly string[];
}

/** Why dist/ cannot be measured as the current sources, or undefined when it can. */
function distProblem(): string | undefined {
  if (!existsSync(bin)) return 'dist/cli/main.js is missing: run `npm run build`';
  const built = statSync(bin).mtimeMs;
  const stale = ['src/cli/main.ts', 'src/cli/commands.ts'].some((file) => statSync(join(root, file)).mtimeMs > built);
  return stale ? 'dist/ is older than src/cli: run `npm run build`' : undefined;
}

/** Wall time of one run; a command that fails is reported, not timed. */
function timeOnce(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`\`node ${args.join(' ')}\` exited ${run.status}: ${run.stderr.toString().trim()}`);
  return ms;
}

/** ESM modules (files and packages, not node: built-ins) that `ptc <args>` loads, counted by a load hook. */
function modulesLoaded(args: readonly string[], env: NodeJS.ProcessEnv, dir: string): number {
  const list = join(dir, 'modules.txt');
  const hooks = join(dir, 'count-hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) {\n` +
      `  if (!url.startsWith('node:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n` +
      `  return next(url, context);\n}\n`,
  );
  writeFileSync(join(dir, 'count.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  writeFileSync(list, '');
  spawnSync(process.execPath, ['--import', join(dir, 'count.mjs'), bin, ...args], { env, cwd: dir, stdio: 'ignore' });
  return readFileSync(list, 'utf8').split('\n').filter(Boolean).length;
}

/** Processes a command starts besides itself (execve calls seen by strace), or undefined without strace. */
function processesStarted(args: readonly string[], env: NodeJS.ProcessEnv, dir: string): { total: number; detail: string } | undefined {
  const strace = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p));
  if (strace === undefined) return undefined;
  const out = join(dir, 'strace.txt');
  spawnSync(strace, ['-f', '-qq', '-e', 'trace=execve', '-o', out, process.execPath, bin, ...args], { env, cwd: dir, stdio: 'ignore' });
  const programs = readFileSync(out, 'utf8')
    .split('\n')
    .filter((line) => line.includes('execve(') && !line.includes('ENOENT'))
    .map((line) => /execve\("([^"]+)", \[("[^"]*")?(?:, ("[^"]*"))?/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .slice(1) // the command itself
    .map((m) => (m[1]!.endsWith('/bwrap') ? 'bwrap' : `${m[1]!.split('/').pop()} ${m[3] ?? ''}`.trim()));
  const counts = new Map<string, number>();
  for (const p of programs) counts.set(p, (counts.get(p) ?? 0) + 1);
  return { total: programs.length, detail: [...counts].map(([p, n]) => `${n}× ${p.replaceAll('"', '')}`).join(', ') };
}

/** Rows `[measurement, median, ratio to node -e 0]`, all measured in this run. */
export async function cliStartRows(): Promise<string[][]> {
  const problem = distProblem();
  if (problem !== undefined) return [['CLI start-up (`ptc --help`, `ptc --version`, `ptc tools`, `ptc exec`)', `not measured: ${problem}`, '']];
  const dir = mkdtempSync(join(tmpdir(), 'ptc-cli-bench-'));
  try {
    writeFileSync(join(dir, 'trivial.ts'), 'return 1;\n');
    // The same minimal environment as the `node -e 0` baseline of bench/run.ts.
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir };
    const commands: Measured[] = [
      { label: '`node -e 0` (baseline)', args: ['-e', '0'] },
      { label: '`ptc --help`', args: [bin, '--help'] },
      { label: '`ptc --version`', args: [bin, '--version'] },
      { label: '`ptc tools`', args: [bin, 'tools'] },
      { label: '`ptc exec` of `return 1` (sandbox auto)', args: [bin, 'exec', 'trivial.ts'] },
    ];
    for (const c of commands) timeOnce(c.args, env, dir); // warm the page cache
    const samples = commands.map(() => [] as number[]);
    for (let i = 0; i < SAMPLES; i++) commands.forEach((c, k) => samples[k]!.push(timeOnce(c.args, env, dir)));
    const medians = samples.map(median);
    const baseline = medians[0]!;
    const rows = commands.map((c, k) => [`CLI start-up: ${c.label}, built dist/`, `${medians[k]!.toFixed(0)} ms`, (medians[k]! / baseline).toFixed(2)]);
    rows.push(['CLI start-up: modules `ptc --help` loads (files and packages)', String(modulesLoaded(['--help'], env, dir)), '']);
    rows.push(['CLI start-up: modules `ptc tools` loads (files and packages)', String(modulesLoaded(['tools'], env, dir)), '']);
    const started = processesStarted(['exec', 'trivial.ts'], env, dir);
    rows.push([
      'CLI start-up: processes a trivial `ptc exec` starts besides itself',
      started === undefined ? 'not measured: strace is not installed' : `${started.total} (${started.detail})`,
      '',
    ]);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load = loadavg()[0] ?? 0;
  for (const row of await cliStartRows()) console.log(`| ${row.join(' | ')} |`);
  console.log(`load average ${load.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end`);
}
