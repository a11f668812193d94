// The exec server (docs/exec-server.md): `ptc exec` through a real server and its runners gives
// what a one-shot `ptc exec` gives (stdout, stderr, exit code), for programs that succeed, fail,
// log, come from stdin, load a plugin; and the server turns away what it must: a wrong token, a
// client of another build, a directory that is not private. Real processes, real sockets, real
// sandbox (bwrap where it works, as `--sandbox auto` picks).

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { encodeFrame, FrameReader, type Frame } from '../../src/cli/exec-server/frames.js';
import { serverPaths } from '../../src/cli/exec-server/paths.js';
import { PTC_BIN, runPtc, type PtcRun } from '../helpers/run-ptc.js';
import { waitUntil } from '../helpers/wait-until.js';

let base: string;
let n = 0;
beforeAll(() => void (base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-exec-server-')))));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

interface Setting {
  readonly ws: string;
  readonly env: Record<string, string>;
  readonly name: string;
  ptc(args: readonly string[], input?: string, extra?: Record<string, string>): Promise<PtcRun>;
}

function setting(): Setting {
  const root = path.join(base, `case-${++n}`);
  const ws = path.join(root, 'ws');
  const home = path.join(root, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home);
  const name = `t${process.pid}-${n}-${Date.now().toString(36)}`;
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, PTC_HOME: path.join(root, 'ptc-home'), PTC_EXEC_SERVER_NAME: name };
  onTestFinished(() => {
    const paths = serverPaths(env);
    if (paths !== undefined) fs.rmSync(paths.dir, { recursive: true, force: true });
  });
  return { ws, env, name, ptc: (args, input, extra = {}) => runPtc(args, { cwd: ws, env: { ...env, ...extra }, ...(input !== undefined ? { input } : {}) }) };
}

interface Server {
  readonly child: ChildProcess;
  log(): string;
  stop(): Promise<string>;
}

/** `ptc exec-server run` in the foreground, resolved once it listens (its first runner is ready). */
async function startServer(s: Setting): Promise<Server> {
  const child = spawn(process.execPath, [PTC_BIN, 'exec-server', 'run', '--idle', '120000'], { cwd: s.ws, env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  await waitUntil('the server listens', () => log.includes('listening on') || child.exitCode !== null, 30_000);
  expect(log).toContain('listening on');
  return {
    child,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      return log;
    },
  };
}

/** The first line of `ptc exec-server`'s closing note: how many it served and declined. */
function counts(log: string): { served: number; declined: number } {
  const match = /served (\d+) command lines, declined (\d+)/.exec(log);
  expect(match, log).not.toBeNull();
  return { served: Number(match?.[1]), declined: Number(match?.[2]) };
}

/** A raw client: sends `request` (with the given token) and collects the frames until the server closes. */
function rawRequest(socket: string, request: Record<string, unknown>): Promise<Frame[]> {
  return new Promise((resolve) => {
    const frames: Frame[] = [];
    const reader = new FrameReader();
    const conn = net.connect(socket, () => conn.write(encodeFrame('request', JSON.stringify(request))));
    conn.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
    conn.on('error', () => undefined);
    conn.on('close', () => resolve(frames));
  });
}

describe('ptc exec through the exec server', () => {
  it('gives the stdout, stderr and exit code of a one-shot exec, and serves them in its runner', async () => {
    const s = setting();
    fs.writeFileSync(path.join(s.ws, 'ok.ts'), 'const n: number = 41;\nreturn { n: n + 1 };\n');
    fs.writeFileSync(path.join(s.ws, 'bad.ts'), 'console.log("before the throw");\nthrow new Error("boom");\n');
    fs.writeFileSync(path.join(s.ws, 'files.ts'), 'return (await tools.glob({ pattern: "*.ts" })).files.sort();\n');
    const cases: { args: string[]; input?: string }[] = [
      { args: ['exec', 'ok.ts'] },
      { args: ['exec', 'bad.ts'] },
      { args: ['exec', 'files.ts'] },
      { args: ['exec', 'missing.ts'] },
      { args: ['exec', '--no-such-flag', 'ok.ts'] },
      { args: ['exec', 'ok.ts', '--timeout', '0'] },
    ];
    const alone = [];
    for (const c of cases) alone.push(await s.ptc(c.args, c.input, { PTC_NO_EXEC_SERVER: '1' }));
    const server = await startServer(s);
    const served = [];
    for (const c of cases) served.push(await s.ptc(c.args, c.input));
    expect(served).toEqual(alone);
    expect(served[0]).toMatchObject({ code: 0, stdout: '{\n  "n": 42\n}\n' });
    expect(served[1]?.code).toBe(1);
    expect(served[1]?.stderr).toContain('before the throw');
    expect(served[1]?.stderr).toContain('boom');
    expect(served[3]?.code).toBe(2);
    // Every command line found the runner ready and started with this environment.
    expect(counts(await server.stop())).toEqual({ served: cases.length, declined: 0 });
  });

  it('relays stdin for `exec -` and --json, then hands the next command line to a fresh runner', async () => {
    const s = setting();
    const server = await startServer(s);
    const viaStdin = await s.ptc(['exec', '-'], 'return [1, 2, 3].map((x) => x * 2);\n');
    expect(viaStdin).toEqual({ code: 0, stdout: '[\n  2,\n  4,\n  6\n]\n', stderr: '' });
    await waitUntil('the runner retired', () => server.log().includes('a fresh runner takes over: its stdin was read'));
    const json = await s.ptc(['exec', '-', '--json'], 'console.log("a line"); return "v";\n');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, value: 'v', logs: ['a line'] });
    const log = await server.stop();
    // The second came while the fresh runner may still have been starting: then it ran in the client.
    expect(counts(log).served + counts(log).declined).toBe(2);
    expect(counts(log).served).toBeGreaterThanOrEqual(1);
  });

  it('retires a runner that imported a plugin, so an edited import of the plugin is seen next time', async () => {
    const s = setting();
    // The plugin's own import is what no version parameter reaches: only a fresh process sees its edit.
    fs.writeFileSync(
      path.join(s.ws, 'units.mjs'),
      `import { FACTOR } from './factor.mjs';
export const name = 'units';
export function apply(ctx) {
  ctx.tools.register({
    name: 'scale',
    description: 'Multiplies n by the factor.',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
    execute: async ({ n }) => ({ n: n * FACTOR }),
  });
}
`,
    );
    const factor = (f: number) => fs.writeFileSync(path.join(s.ws, 'factor.mjs'), `export const FACTOR = ${f};\n`);
    factor(2);
    fs.writeFileSync(path.join(s.ws, 'p.ts'), 'return (await tools.scale({ n: 5 })).n;\n');
    const args = ['exec', '--plugin', './units.mjs', 'p.ts'];
    const server = await startServer(s);
    const first = await s.ptc(args);
    expect(first).toEqual(await s.ptc(args, undefined, { PTC_NO_EXEC_SERVER: '1' }));
    expect(first).toMatchObject({ code: 0, stdout: '10\n' });
    await waitUntil('the runner retired', () => server.log().includes('it imported user code'));
    factor(3);
    expect(await s.ptc(args)).toMatchObject({ code: 0, stdout: '15\n' });
    await server.stop();
  });

  it('ends the run with the client: a client killed mid-run takes its runner with it', async () => {
    const s = setting();
    fs.writeFileSync(path.join(s.ws, 'slow.ts'), 'await new Promise((resolve) => setTimeout(resolve, 60_000));\nreturn 1;\n');
    const server = await startServer(s);
    const runnerOf = () => childrenOf(server.child.pid ?? -1);
    const [runner] = runnerOf();
    expect(runner).toBeDefined();
    const client = spawn(process.execPath, [PTC_BIN, 'exec', 'slow.ts'], { cwd: s.ws, env: s.env, stdio: 'ignore' });
    // The runner's sandboxed program is running once the runner has a child of its own.
    await waitUntil('the program runs', () => childrenOf(runner ?? -1).length > 0);
    client.kill('SIGKILL');
    await waitUntil('the runner is gone', () => !fs.existsSync(`/proc/${runner}`));
    await waitUntil('a fresh runner', () => runnerOf().length === 1 && runnerOf()[0] !== runner);
    expect(counts(await server.stop()).served).toBe(1);
  });
  it('a server killed outright leaves no runner behind, nor the child it started for the next run', async () => {
    const s = setting();
    fs.writeFileSync(path.join(s.ws, 'p.ts'), 'return 3;\n');
    const server = await startServer(s);
    expect(await s.ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: '3\n' });
    const [runner] = childrenOf(server.child.pid ?? -1);
    expect(runner).toBeDefined();
    // After a run the runner starts the sandboxed child the same command line would ask for next.
    await waitUntil('the next child waits', () => childrenOf(runner ?? -1).length > 0);
    const waiting = childrenOf(runner ?? -1);
    server.child.kill('SIGKILL');
    await waitUntil('the runner is gone', () => !fs.existsSync(`/proc/${runner}`));
    await waitUntil('its child is gone', () => waiting.every((pid) => !fs.existsSync(`/proc/${pid}`)));
  });
});

describe('what the exec server turns away', () => {
  it('drops a client with a wrong token, and keeps serving', async () => {
    const s = setting();
    const server = await startServer(s);
    const paths = serverPaths(s.env);
    if (paths === undefined) throw new Error('no paths');
    const frames = await rawRequest(paths.socket, { token: 'f'.repeat(64), args: ['exec', 'x.ts'], cwd: s.ws, env: s.env, stamp: 'x', node: process.version, stdin: false });
    expect(frames).toEqual([]);
    fs.writeFileSync(path.join(s.ws, 'p.ts'), 'return 5;\n');
    expect(await s.ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: '5\n' });
    expect(counts(await server.stop())).toEqual({ served: 1, declined: 0 });
  });

  it('declines a client of another build and stops, removing its token', async () => {
    const s = setting();
    const server = await startServer(s);
    const paths = serverPaths(s.env);
    if (paths === undefined) throw new Error('no paths');
    const token = fs.readFileSync(paths.token, 'utf8').trim();
    const frames = await rawRequest(paths.socket, { token, args: ['exec', 'x.ts'], cwd: s.ws, env: s.env, stamp: 'another build', node: process.version, stdin: false });
    expect(frames.map((f) => f.kind)).toEqual(['declined']);
    await waitUntil('the server stopped', () => server.child.exitCode !== null);
    expect(server.log()).toContain('a client of a newer build came');
    expect(fs.existsSync(paths.token)).toBe(false);
  });

  it('does not start in a directory that is not private, and a client ignores a server there', async () => {
    const s = setting();
    const paths = serverPaths(s.env);
    if (paths === undefined) throw new Error('no paths');
    fs.mkdirSync(paths.root, { recursive: true, mode: 0o700 });
    fs.mkdirSync(paths.dir, { mode: 0o755 });
    fs.chmodSync(paths.dir, 0o755);
    const refused = await s.ptc(['exec-server', 'run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("the exec server's directory is not private");
    expect(refused.stderr).toContain('mode 755');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    // A token planted there is not read: the exec runs in the client as if no server existed.
    fs.writeFileSync(paths.token, 'planted\n', { mode: 0o600 });
    fs.writeFileSync(path.join(s.ws, 'p.ts'), 'return 6;\n');
    expect(await s.ptc(['exec', 'p.ts'])).toMatchObject({ code: 0, stdout: '6\n' });
  });
});

/** The pids of the direct children of `pid` (every thread's list). */
function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
      .filter((p) => p !== '')
      .map(Number);
  } catch {
    return [];
  }
}
