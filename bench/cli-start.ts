// Start-up of the built `ptc` command as users run it (the package's bin, dist/cli/ptc.cjs; issues 11 and 27): `ptc
// --help`, `ptc --version`, `ptc tools`, `ptc sdk` (answered from the output cache, and with it
// off) and a trivial `ptc exec`, each as a median wall time and a ratio to `node -e 0` measured in
// the same run, in turns so load drifts hit every command alike, judged against issue 27's targets. Also counts that load does not blur: the modules each
// command loads (ESM and CommonJS files, node: built-ins not counted), and the processes a trivial
// `ptc exec` starts (when strace is installed). `ptc exec` is measured twice: on its own, and with
// this user's exec server running (docs/exec-server.md; started here with its own name, stopped at
// the end). Build first: `npm run build`.
// Run alone: `npm run bench:cli` (BENCH_CLI_SAMPLES=n for more turns than 11).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverPaths } from '../src/cli/exec-server/paths.js';
import { median } from './median.js';

const SAMPLES = Number(process.env['BENCH_CLI_SAMPLES'] ?? 11);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The package's bin (package.json "bin"): dist/cli/ptc.cjs, the bundle of dist/cli/main.js (scripts/bundle-bin.mjs). */
const bin = join(root, (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { ptc: string } }).bin.ptc);

interface Measured {
  readonly label: string;
  readonly args: readonly string[];
  /** Variables added to the shared environment for this command. */
  readonly env?: Readonly<Record<string, string>>;
  /** Issue 27's target for the ratio to `node -e 0`, when it has one. */
  readonly target?: number;
}

/** Why dist/ cannot be measured as the current sources, or undefined when it can. */
function distProblem(): string | undefined {
  if (!existsSync(bin)) return `${bin} is missing: run \`npm run build\``;
  // Without it --help is commander's (tsc alone does not write it; `npm run build` does).
  if (!existsSync(join(root, 'dist/cli/help.json'))) return 'dist/cli/help.json is missing: run `npm run build`';
  const built = statSync(bin).mtimeMs;
  const stale = ['src/cli/main.ts', 'src/cli/start.ts', 'src/cli/quick-answer.ts', 'src/cli/program.ts', 'src/cli/commands.ts', 'src/cli/output-cache.ts'].some((file) => statSync(join(root, file)).mtimeMs > built);
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

/**
 * Modules (files and packages, not node: built-ins) that `ptc <args>` loads: ESM ones seen by a load
 * hook, CommonJS ones (ajv, commander, ...) read from require.cache at exit, each file once.
 */
function modulesLoaded(args: readonly string[], env: NodeJS.ProcessEnv, dir: string, aux: string): number {
  const list = join(aux, 'modules.txt');
  const hooks = join(aux, 'count-hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) {\n` +
      `  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, new URL(url).pathname + '\\n');\n` +
      `  return next(url, context);\n}\n`,
  );
  writeFileSync(
    join(aux, 'count.mjs'),
    `import { register, createRequire } from 'node:module';\nimport { appendFileSync } from 'node:fs';\n` +
      `register(${JSON.stringify(`file://${hooks}`)});\n` +
      `const cache = createRequire(import.meta.url).cache;\n` +
      `process.on('exit', () => appendFileSync(${JSON.stringify(list)}, Object.keys(cache).join('\\n') + '\\n'));\n`,
  );
  writeFileSync(list, '');
  const run = spawnSync(process.execPath, ['--import', join(aux, 'count.mjs'), bin, ...args], { env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`\`ptc ${args.join(' ')}\` exited ${run.status} while counting modules: ${run.stderr.toString().trim()}`);
  const files = new Set(readFileSync(list, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith(aux)));
  return files.size;
}

/** Processes a command starts besides itself (execve calls seen by strace), or undefined without strace. */
function processesStarted(args: readonly string[], env: NodeJS.ProcessEnv, dir: string, aux: string): { total: number; detail: string } | undefined {
  const strace = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p));
  if (strace === undefined) return undefined;
  const out = join(aux, 'strace.txt');
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

/** `ptc exec-server run` with the bench's environment, resolved once it listens (its runner is ready). */
async function startExecServer(env: NodeJS.ProcessEnv, cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [bin, 'exec-server', 'run', '--idle', '600000'], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('listening on')) resolve();
    });
    child.once('exit', () => reject(new Error(`the exec server did not start: ${said.trim()}`)));
  });
  return child;
}

async function stopExecServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Rows `[measurement, median, ratio to node -e 0, target, met]`, all measured in this run. */
export async function cliStartRows(): Promise<string[][]> {
  const problem = distProblem();
  if (problem !== undefined) return [['CLI start-up (`ptc --help`, `ptc --version`, `ptc tools`, `ptc sdk`, `ptc exec`)', `not measured: ${problem}`, '']];
  const dir = mkdtempSync(join(tmpdir(), 'ptc-cli-bench-'));
  // The counting hooks and lists live outside the workspace: a file added there is a change the
  // output cache of `ptc tools` sees (src/cli/output-cache.ts).
  const aux = mkdtempSync(join(tmpdir(), 'ptc-cli-bench-aux-'));
  let server: ChildProcess | undefined;
  const serverName = `bench-${process.pid}`;
  try {
    writeFileSync(join(dir, 'trivial.ts'), 'return 1;\n');
    // The same minimal environment as the `node -e 0` baseline of bench/run.ts; PTC_HOME is the
    // temp dir's, so a compile cache (Node 22+, src/cli/compile-cache.ts) starts empty and is warmed
    // by the page-cache pass below, as it is for a user after their first command.
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, PTC_EXEC_SERVER_NAME: serverName };
    const commands: Measured[] = [
      { label: '`node -e 0` (baseline)', args: ['-e', '0'] },
      { label: '`ptc --help`', args: [bin, '--help'], target: 1.5 },
      { label: '`ptc --version`', args: [bin, '--version'], target: 1.5 },
      { label: '`ptc tools`', args: [bin, 'tools'], target: 1.5 },
      { label: '`ptc sdk`', args: [bin, 'sdk'], target: 2 },
      // What the first run, or one after any input changed, costs (src/cli/output-cache.ts).
      { label: '`ptc tools`, output cache off (a miss)', args: [bin, 'tools'], env: { PTC_NO_OUTPUT_CACHE: '1' } },
      { label: '`ptc sdk`, output cache off (a miss)', args: [bin, 'sdk'], env: { PTC_NO_OUTPUT_CACHE: '1' } },
      { label: '`ptc exec` of `return 1` (sandbox auto), no exec server', args: [bin, 'exec', 'trivial.ts'], env: { PTC_NO_EXEC_SERVER: '1' }, target: 2.5 },
      { label: '`ptc exec` of `return 1` (sandbox auto), exec server running', args: [bin, 'exec', 'trivial.ts'], target: 2.5 },
    ];
    server = await startExecServer(env, dir);
    // Warms the page cache, and the output cache of `ptc tools` and `ptc sdk` as a user's first run does.
    for (const c of commands) timeOnce(c.args, { ...env, ...c.env }, dir);
    const samples = commands.map(() => [] as number[]);
    for (let i = 0; i < SAMPLES; i++) commands.forEach((c, k) => samples[k]!.push(timeOnce(c.args, { ...env, ...c.env }, dir)));
    const medians = samples.map(median);
    const baseline = medians[0]!;
    const rows = commands.map((c, k) => {
      const ratio = medians[k]! / baseline;
      const goal = c.target === undefined ? ['', ''] : [`<= ${c.target.toFixed(2)}x`, ratio <= c.target ? 'met' : '**not met**'];
      return [`CLI start-up: ${c.label}, built dist/`, `${medians[k]!.toFixed(0)} ms`, `${ratio.toFixed(2)}x`, ...goal];
    });
    for (const [label, args, extra] of [
      ['`ptc --help`', ['--help'], {}],
      ['`ptc tools`', ['tools'], {}],
      ['`ptc sdk`', ['sdk'], {}],
      ['`ptc tools` with the output cache off', ['tools'], { PTC_NO_OUTPUT_CACHE: '1' }],
      ['a trivial `ptc exec`', ['exec', 'trivial.ts'], { PTC_NO_EXEC_SERVER: '1' }],
      ['a trivial `ptc exec`, exec server running', ['exec', 'trivial.ts'], {}],
    ] as const) {
      rows.push([`CLI start-up: modules ${label} loads (ESM and CommonJS files)`, String(modulesLoaded(args, { ...env, ...extra }, dir, aux)), '']);
    }
    const started = processesStarted(['exec', 'trivial.ts'], { ...env, PTC_NO_EXEC_SERVER: '1' }, dir, aux);
    rows.push([
      'CLI start-up: processes a trivial `ptc exec` starts besides itself',
      started === undefined ? 'not measured: strace is not installed' : `${started.total} (${started.detail})`,
      '',
    ]);
    return rows;
  } finally {
    if (server !== undefined) await stopExecServer(server);
    // A stopped server leaves its empty directory (the name is the bench's own, never used again).
    const serverDir = serverPaths({ PTC_EXEC_SERVER_NAME: serverName })?.dir;
    if (serverDir !== undefined) rmSync(serverDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    rmSync(aux, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load = loadavg()[0] ?? 0;
  console.log(`Node ${process.version}; medians of ${SAMPLES} runs in turns; ratio to \`node -e 0\` of the same run.\n`);
  console.log('| measurement | median | ratio | target | met |\n|---|---|---|---|---|');
  for (const row of await cliStartRows()) console.log(`| ${[...row, '', ''].slice(0, 5).join(' | ')} |`);
  console.log(`load average ${load.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end`);
}
