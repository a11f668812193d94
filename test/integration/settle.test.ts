// What "settled" guarantees (docs/runtime-lifecycle.md, "Settling"): when run() resolves, no process
// of the program can run code again. Each program below keeps writers busy appending to a file in the
// workspace — a Worker thread, a timer, a child process, a setsid orphan, a double-forked daemon, an
// exit handler, large writes in flight — and makes sure every one of them has written before it
// returns, throws or runs out of time. After the result the file must never grow again: it is
// re-read repeatedly over a window, for many runs.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapRequired } from '../helpers/bwrap.js';
import { sizeOf } from '../helpers/file-size.js';
import type { BindingNamespace, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { PhaseTrace } from '../../src/languages/typescript/runtime/trace.js';
import { freezerSupport, setFreezeEnabled } from '../../src/sandbox/index.js';
import { thawAllNow } from '../../src/sandbox/freezer.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-settle-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/** How long after each result the file is watched, and how often it is re-read. */
const WATCH_MS = 120;
const WATCH_EVERY_MS = 4;
const RUNS_PER_CASE = 3;
const MIXED_RUNS = 10;
/** Timed-out runs each wait out their deadline (long enough for every writer to start on a loaded machine). */
const TIMEOUT_RUNS = 3;
const TIMEOUT_MS = 2_500;

type Ending = 'return' | 'throw' | 'abort' | 'timeout';

/**
 * Writers: each appends its tag to FILE, creates the marker FILE.<its tag>, then appends its tag to FILE forever, from the
 * place its name says (markers, because re-reading a fast-growing FILE to see who wrote would slow
 * every run down).
 */
const WRITERS = {
  // Dynamic import: an eval'd Worker's code is a CommonJS script or an ES module depending on the bootstrap.
  worker: `new (require('node:worker_threads').Worker)(
    "Promise.all([import('node:fs'), import('node:worker_threads')]).then(([fs, { workerData: f }]) => { fs.appendFileSync(f, 'w'); fs.writeFileSync(f + '.w', ''); for (;;) fs.appendFileSync(f, 'w'); });",
    { eval: true, workerData: FILE });`,
  timer: `setInterval(() => { require('node:fs').appendFileSync(FILE, 't'); require('node:fs').writeFileSync(FILE + '.t', ''); }, 0);`,
  child: `require('node:child_process').spawn('sh', ['-c', 'printf c >> "$F"; : > "$F.c"; while :; do printf c >> "$F"; done'], { env: { F: FILE }, stdio: 'ignore' });`,
  // A new process per write: processes born after the kill listed the tree's members die only with the namespace.
  forker: `require('node:child_process').spawn('sh', ['-c', '/usr/bin/printf f >> "$F"; : > "$F.f"; while :; do /usr/bin/printf f >> "$F"; done'], { env: { F: FILE }, stdio: 'ignore' });`,
  orphan: `require('node:child_process').spawn('sh', ['-c', 'printf o >> "$F"; : > "$F.o"; while :; do printf o >> "$F"; done'], { env: { F: FILE }, stdio: 'ignore', detached: true }).unref();`,
  daemon: `require('node:child_process').spawn('sh', ['-c', '(setsid sh -c "printf d >> \\"\\$F\\"; : > \\"\\$F.d\\"; while :; do printf d >> \\"\\$F\\"; done" &) ; exit 0'], { env: { F: FILE }, stdio: 'ignore' });`,
  // 2 MiB writes in flight on libuv's threads (at most 8 of them, to bound the disk used).
  big: `{ const fs = require('node:fs'); const chunk = Buffer.alloc(2 << 20, 98); const fd = fs.openSync(FILE, 'a'); let n = 0;
    const loop = () => { if (n++ < 8) fs.write(fd, chunk, () => { fs.writeFileSync(FILE + '.b', ''); loop(); }); }; loop(); loop(); }`,
  exitHook: `process.on('exit', () => { const fs = require('node:fs'); for (let i = 0; i < 2e4; i++) fs.appendFileSync(FILE, 'x'); });
    require('node:fs').appendFileSync(FILE, 'x'); require('node:fs').writeFileSync(FILE + '.x', '');`,
} as const;

type Writer = keyof typeof WRITERS;
/** Writers a run without a pid namespace is not claimed to stop (docs/sandbox.md, "What this does not cover"). */
const NEEDS_NAMESPACE: readonly Writer[] = ['daemon'];
/** The tag each writer leaves in the file. */
const TAGS: Record<Writer, string> = { worker: 'w', timer: 't', child: 'c', forker: 'f', orphan: 'o', daemon: 'd', big: 'b', exitHook: 'x' };

function programFor(writers: readonly Writer[], ending: Ending): string {
  const tags = JSON.stringify(writers.map((writer) => TAGS[writer]));
  const end =
    ending === 'return'
      ? 'return "done";'
      : ending === 'throw'
        ? 'throw new Error("thrown while writing");'
        : // Aborted by the host as soon as it hears that every writer runs; or left to time out.
          `${ending === 'abort' ? 'void host.writing();' : ''} await new Promise(() => {});`;
  return [
    `const FILE = ${JSON.stringify('FILE_PATH')};`,
    ...writers.map((writer) => WRITERS[writer]),
    // Every writer must have written at least once: the result then lands while all of them are busy.
    `const fs = require('node:fs');`,
    `for (;;) {`,
    `  if (${tags}.every((tag) => fs.existsSync(FILE + '.' + tag))) break;`,
    `  await new Promise((r) => setTimeout(r, 2)); }`,
    end,
  ].join('\n');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;

/** Runs one program and watches its file after the result: returns the growth seen (0 = settled). */
async function runAndWatch(rt: NodeRuntime, writers: readonly Writer[], ending: Ending): Promise<{ result: RunResult; late: number; text: string }> {
  const file = join(workspace, `out-${counter++}.txt`);
  const program = programFor(writers, ending).replace('FILE_PATH', file);
  const abort = new AbortController();
  const host: BindingNamespace = {
    global: 'host',
    functions: {
      writing: async () => {
        abort.abort();
        return null;
      },
    },
  };
  const result = await rt.run(
    await rt.resolve({ program, cwd: workspace, bindings: [host], signal: abort.signal, timeoutMs: ending === 'timeout' ? TIMEOUT_MS : 10_000 }),
  );
  const atResult = sizeOf(file);
  let late = 0;
  // Watched twice: as the run left it (a frozen sandbox waits for a pause before its thaw) and
  // after every waiting sandbox was thawed, when its killed tasks die.
  for (const thaw of [false, true]) {
    if (thaw) thawAllNow();
    const until = Date.now() + WATCH_MS;
    while (Date.now() < until) {
      await pause(WATCH_EVERY_MS);
      late = Math.max(late, sizeOf(file) - atResult);
    }
  }
  const text = readFileSync(file, 'latin1');
  // The empty .git/.ptc directories are the mount points of the sandbox's protected-path
  // placeholders (docs/sandbox.md, "Protected paths"), not files of a writer.
  for (const name of readdirSync(workspace)) if (name !== '.git' && name !== '.ptc') rmSync(join(workspace, name), { force: true });
  return { result, late, text };
}

function expectEnding(result: RunResult, ending: Ending): void {
  if (ending === 'return') expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  else expect(result.error?.code, JSON.stringify(result.error)).toBe({ throw: 'EXCEPTION', abort: 'ABORTED', timeout: 'TIMEOUT' }[ending]);
}

// Under bwrap twice: settling by freezing where this host can make freezer groups (root, cgroup v1),
// and by watching the namespace's /proc, which is what every other host uses.
describe.each([
  ['auto', true],
  ['auto', false],
  ['off', true],
] as const)('settling, sandbox %s, freezer allowed: %s', (sandbox, freeze) => {
  let rt: NodeRuntime;
  let backend = '';

  beforeAll(async () => {
    setFreezeEnabled(freeze);
    // Tracing off, as in production (the traced runtime is exercised below).
    rt = createNodeRuntime({ sandbox, pool: { size: 2 } });
    backend = (await rt.run(await rt.resolve({ program: 'return 1', cwd: workspace }))).sandbox.backend;
  });
  afterAll(async () => {
    await rt.close();
    setFreezeEnabled(true);
  });

  const cases = (Object.keys(WRITERS) as Writer[]).flatMap((writer) =>
    (['return', 'throw', 'abort'] as const).map((ending) => [writer, ending] as const),
  );

  it.each(cases)('nothing a %s writes lands after the result (program ends by %s)', async (writer, ending) => {
    if (sandbox === 'auto' && backend !== 'bwrap') {
      // Without bwrap 'auto' is the node-permission backend, which denies child processes.
      expect(bwrapRequired, `sandbox 'auto' chose ${backend}`).toBe(false);
      return;
    }
    if (sandbox === 'off' && NEEDS_NAMESPACE.includes(writer)) return;
    for (let i = 0; i < RUNS_PER_CASE; i++) {
      const { result, late, text } = await runAndWatch(rt, [writer], ending);
      expectEnding(result, ending);
      // The writer really was busy when the result came.
      expect(text).toContain(TAGS[writer]);
      expect(late, `run ${i}: ${late} bytes landed after the result`).toBe(0);
    }
  });

  it('nothing lands after the result with every writer at once, many times', async () => {
    if (sandbox === 'auto' && backend !== 'bwrap') {
      expect(bwrapRequired, `sandbox 'auto' chose ${backend}`).toBe(false);
      return;
    }
    const writers = (Object.keys(WRITERS) as Writer[]).filter((writer) => sandbox !== 'off' || !NEEDS_NAMESPACE.includes(writer));
    const endings: Ending[] = ['return', 'throw', 'abort'];
    for (let i = 0; i < MIXED_RUNS; i++) {
      const ending = endings[i % endings.length] as Ending;
      const { result, late } = await runAndWatch(rt, writers, ending);
      expectEnding(result, ending);
      expect(late, `run ${i}: ${late} bytes landed after the result`).toBe(0);
    }
  }, 120_000);

  it('nothing lands after a timeout with every writer at once', async () => {
    if (sandbox === 'auto' && backend !== 'bwrap') {
      expect(bwrapRequired, `sandbox 'auto' chose ${backend}`).toBe(false);
      return;
    }
    const writers = (Object.keys(WRITERS) as Writer[]).filter((writer) => sandbox !== 'off' || !NEEDS_NAMESPACE.includes(writer));
    for (let i = 0; i < TIMEOUT_RUNS; i++) {
      const { result, late, text } = await runAndWatch(rt, writers, 'timeout');
      expectEnding(result, 'timeout');
      for (const writer of writers) expect(text).toContain(TAGS[writer]);
      expect(late, `run ${i}: ${late} bytes landed after the result`).toBe(0);
    }
  }, 60_000);

  it('under bwrap, runs settle on a fast path (frozen, or the namespace read from /proc), not the full wait; traced runs settle too', async () => {
    if (sandbox === 'auto' && backend !== 'bwrap') {
      // Without bwrap 'auto' is the node-permission backend, which denies the Worker and the child.
      expect(bwrapRequired, `sandbox 'auto' chose ${backend}`).toBe(false);
      return;
    }
    const traces: PhaseTrace[] = [];
    const traced = createNodeRuntime({ sandbox, pool: { size: 2 }, onPhases: (trace) => traces.push(trace) });
    try {
      for (let i = 0; i < 4; i++) {
        const { result, late } = await runAndWatch(traced, ['worker', 'child'], i % 2 === 0 ? 'return' : 'throw');
        expectEnding(result, i % 2 === 0 ? 'return' : 'throw');
        expect(late).toBe(0);
      }
    } finally {
      await traced.close();
    }
    if (backend !== 'bwrap') return;
    const ran = traces.filter((trace) => trace.at.take !== undefined);
    expect(ran.length).toBeGreaterThan(0);
    // Freezing where this host can, else the namespace's /proc; the full wait remains the fallback.
    const expected = freeze && freezerSupport().root !== undefined ? 'frozen' : 'fast';
    console.log(`settled ${expected}: ${ran.filter((trace) => trace.settle === expected).length} of ${ran.length}`);
    expect(ran.filter((trace) => trace.settle === expected).length).toBeGreaterThan(ran.length / 2);
    for (const trace of ran) {
      expect(trace.at.kill, JSON.stringify(trace)).toBeDefined();
      expect(trace.at.empty).toBeGreaterThanOrEqual(trace.at.kill as number);
      expect(trace.at.result).toBeGreaterThanOrEqual(trace.at.empty as number);
    }
  });
});

// The fast path trusts that every write ends inside a system call of a task it can see; kernel AIO and
// io_uring could finish a write after all of them are gone, so the sandbox's seccomp filter denies
// them (docs/runtime-lifecycle.md, "Settling"). perl is Essential on Debian; its syscall() calls them raw.
describe('asynchronous I/O inside the sandbox', () => {
  it('io_uring_setup and io_setup fail with ENOSYS under bwrap, and work outside it', async () => {
    if (spawnSync('perl', ['-e', '1']).status !== 0) {
      // perl is Essential on Debian, where CI runs; elsewhere it may be missing.
      expect(bwrapRequired, 'perl is needed to make the raw system calls').toBe(false);
      console.warn('skipped: no perl on PATH to make the raw io_uring/AIO system calls');
      return;
    }
    const rt = createNodeRuntime({ sandbox: 'auto', pool: false });
    try {
      const probe = `my $p = "\\0" x 120; my $r = syscall(425, 1, $p); print "$r:", $!+0, " "; my $c = pack("Q", 0); $r = syscall(206, 1, $c); print "$r:", $!+0;`;
      const program = `return require('node:child_process').execFileSync('perl', ['-e', ${JSON.stringify(probe)}], { encoding: 'utf8' });`;
      const result = await rt.run(await rt.resolve({ program, cwd: workspace }));
      if (result.sandbox.backend !== 'bwrap') {
        expect(bwrapRequired, `sandbox 'auto' chose ${result.sandbox.backend}`).toBe(false);
        return;
      }
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.value).toBe('-1:38 -1:38');
      // The same probe outside the sandbox gets an io_uring fd and an AIO context: the filter, not the kernel, denies them.
      const outside = (await import('node:child_process')).execFileSync('perl', ['-e', probe], { encoding: 'utf8' });
      expect(outside).not.toContain(':38');
    } finally {
      await rt.close();
    }
  });
});
