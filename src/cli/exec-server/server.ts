// The exec server (docs/exec-server.md): one per user and build, listening on a unix socket in a
// host-only directory that no sandbox can see (src/sandbox/host-only.ts). A client (`ptc exec`,
// client.ts) that shows the token gets its command line run by a runner (runner.ts), a process
// that loaded the exec path beforehand; the runner's output is relayed back frame by frame. The
// server only relays: what runs, and under which policy, is decided by the same code as a one-shot
// `ptc exec`, from the client's own command line, directory and environment.
//
// One runner at a time. A request finds it ready and started with the same environment (volatile
// variables aside), or is declined before anything ran and the client runs the command itself:
// while the runner is busy or starting, for a client of another build or Node, for a command other
// than `exec`. A client of another build also stops the server (its build was replaced).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../errors.js';
import { buildStamp } from '../fast-start.js';
import { EXEC_SERVER_IDLE_MS, EXEC_SERVER_REQUEST_MS } from '../limits.js';
import { definedEnv, encodeFrame, FrameReader, sortedEnvEntries, type ExecRequest, type Frame } from './frames.js';
import { ensureServerDirs, serverPathsOrThrow, type ServerPaths } from './paths.js';
import type { RunnerMessage, ServerMessage } from './runner-messages.js';

/** Variables that differ from shell to shell without changing what a command does. */
const VOLATILE_ENV = new Set(['PWD', 'OLDPWD', '_', 'SHLVL', 'PTC_RUNNER_GUESS']);
const RUNNER_FILE = fileURLToPath(new URL('./runner.js', import.meta.url));

export interface ExecServerOptions {
  /** Stop after this long without a request, in ms (default EXEC_SERVER_IDLE_MS). */
  readonly idleMs?: number;
  /** The environment the server and its first runner start with (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the server's notes go (default: stderr). */
  readonly log?: (line: string) => void;
}

export interface RunningExecServer {
  readonly paths: ServerPaths;
  /** Settles when the server has stopped (idle, stop(), a replaced build). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

interface Runner {
  readonly child: ChildProcess;
  readonly envKey: string;
  ready: boolean;
  busy: boolean;
}

type Env = Readonly<Record<string, string>>;

function envKeyOf(env: Env): string {
  return JSON.stringify(sortedEnvEntries(env, VOLATILE_ENV));
}

/** Starts this build's exec server. Throws CONFIG when its directory is not private or one already listens. */
export async function startExecServer(options: ExecServerOptions = {}): Promise<RunningExecServer> {
  const env = definedEnv(options.env ?? process.env);
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const paths = serverPathsOrThrow(env);
  ensureServerDirs(paths);
  if (await answers(paths.socket)) throw new ConfigError(`an exec server already runs for this build (${paths.socket}); \`ptc exec-server stop\` ends it.`);
  fs.rmSync(paths.socket, { force: true });
  const token = randomBytes(32).toString('hex');
  writePrivateFile(paths.token, `${token}\n`);
  const stamp = buildStamp();
  const listener = net.createServer();

  let runner: Runner | undefined;
  const counts = { served: 0, declined: 0 };
  const decline = (socket: net.Socket, reason: string) => {
    counts.declined++;
    socket.end(encodeFrame('declined', JSON.stringify({ reason })));
  };
  let stopping: Promise<void> | undefined;
  let resolveStopped = () => {};
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const idleMs = options.idleMs ?? EXEC_SERVER_IDLE_MS;
  let idle: NodeJS.Timeout | undefined;
  const touch = () => {
    if (idle !== undefined) clearTimeout(idle);
    idle = setTimeout(() => void stop('idle'), idleMs);
    idle.unref();
  };

  const startRunner = (runEnv: Env, cwd: string, guess?: readonly string[]): Runner => {
    const child = spawn(process.execPath, [...process.execArgv, RUNNER_FILE], {
      cwd,
      env: { ...runEnv, ...(guess !== undefined ? { PTC_RUNNER_GUESS: JSON.stringify(guess) } : {}) },
      stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const started: Runner = { child, envKey: envKeyOf(runEnv), ready: false, busy: false };
    runner = started;
    child.stdin?.on('error', () => undefined);
    child.on('message', (message: RunnerMessage) => {
      if (message.type === 'ready') started.ready = true;
    });
    child.on('exit', () => {
      if (runner === started) runner = undefined;
    });
    return started;
  };
  const retire = (old: Runner) => {
    if (runner === old) runner = undefined;
    old.child.kill('SIGKILL');
  };

  const serve = (socket: net.Socket, request: ExecRequest, reader: FrameSplitter) => {
    const current = runner;
    if (current === undefined || !current.ready || current.busy) {
      decline(socket, 'busy');
      return;
    }
    if (current.envKey !== envKeyOf(request.env)) {
      // Started for another environment: a fresh runner takes this one's, for the next request.
      retire(current);
      startRunner(request.env, request.cwd, request.args);
      decline(socket, 'another environment');
      return;
    }
    current.busy = true;
    counts.served++;
    let done = false;
    const finish = (replace: boolean) => {
      if (done) return;
      done = true;
      current.child.off('message', onMessage);
      current.child.off('exit', onExit);
      if (replace) {
        retire(current);
        if (stopping === undefined) startRunner(request.env, request.cwd, request.args);
      } else current.busy = false;
    };
    const onMessage = (message: RunnerMessage) => {
      if (message.type === 'out') socket.write(encodeFrame(message.fd === 1 ? 'stdout' : 'stderr', Buffer.from(message.data)));
      else if (message.type === 'exit') {
        socket.end(encodeFrame('exit', JSON.stringify({ code: message.code })));
        if (message.retire !== undefined) log(`ptc exec server: a fresh runner takes over: ${message.retire}`);
        finish(message.retire !== undefined);
      }
    };
    // The runner died mid-run: the client says so (it got no exit) and a fresh runner starts.
    const onExit = () => {
      socket.destroy();
      finish(true);
    };
    current.child.on('message', onMessage);
    current.child.on('exit', onExit);
    // The client went away (Ctrl-C): its run ends with the runner, as a one-shot exec would.
    socket.on('close', () => finish(true));
    socket.write(encodeFrame('accepted', ''));
    const stdin = current.child.stdin;
    reader.onFrame = (frame) => {
      if (frame.kind === 'stdin') stdin?.write(frame.body);
      else if (frame.kind === 'stdin-end') stdin?.end();
    };
    const message: ServerMessage = { type: 'run', args: request.args, cwd: request.cwd, env: request.env, stdin: request.stdin };
    current.child.send(message);
  };

  listener.on('connection', (socket) => {
    touch();
    const reader = new FrameSplitter();
    const deadline = setTimeout(() => socket.destroy(), EXEC_SERVER_REQUEST_MS);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => reader.push(chunk, socket));
    reader.onFrame = (frame) => {
      clearTimeout(deadline);
      const request = frame.kind === 'request' ? parseRequest(frame.body) : undefined;
      if (request === undefined || !sameSecret(request.token, token)) {
        socket.destroy();
        return;
      }
      reader.onFrame = () => undefined;
      if (request.stamp !== stamp) {
        decline(socket, 'another build');
        log('ptc exec server: a client of a newer build came; stopping.');
        void stop('a replaced build');
        return;
      }
      if (request.node !== process.version || request.args[0] !== 'exec') {
        decline(socket, 'not served here');
        return;
      }
      serve(socket, request, reader);
    };
  });

  async function stop(why: string): Promise<void> {
    stopping ??= (async () => {
      if (idle !== undefined) clearTimeout(idle);
      log(`ptc exec server: stopping (${why}); served ${counts.served} command lines, declined ${counts.declined}.`);
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      if (runner !== undefined) retire(runner);
      // Only our own files: a server started since may own the directory now.
      if (readText(paths.token) === `${token}\n`) {
        fs.rmSync(paths.pid, { force: true });
        fs.rmSync(paths.token, { force: true });
      }
      resolveStopped();
    })();
    return stopping;
  }

  // The socket appears once the first runner is ready: a started server is a warm one.
  const first = startRunner(env, process.cwd());
  const booted = await new Promise<number | null | true>((resolve) => {
    first.child.on('message', (message: RunnerMessage) => message.type === 'ready' && resolve(true));
    first.child.once('exit', (code) => resolve(code));
  });
  if (booted !== true) {
    fs.rmSync(paths.token, { force: true });
    throw new ConfigError(`the exec server's runner exited (code ${String(booted)}) before it was ready; its messages are above.`);
  }
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(paths.socket, () => resolve());
  });
  fs.chmodSync(paths.socket, 0o600);
  writePrivateFile(paths.pid, `${process.pid}\n`);
  touch();
  return { paths, stopped, stop: () => stop('asked') };
}

/** FrameReader that hands each frame to `onFrame` (replaced as the conversation moves on). */
class FrameSplitter {
  readonly #reader = new FrameReader();
  onFrame: (frame: Frame) => void = () => undefined;

  push(chunk: Buffer, socket: net.Socket): void {
    let frames: Frame[];
    try {
      frames = this.#reader.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const frame of frames) this.onFrame(frame);
  }
}

function parseRequest(body: Buffer): ExecRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const env = r['env'];
  const envOk = typeof env === 'object' && env !== null && !Array.isArray(env) && Object.values(env).every((v) => typeof v === 'string');
  if (typeof r['token'] !== 'string' || !strings(r['args']) || typeof r['cwd'] !== 'string' || !envOk) return undefined;
  if (typeof r['stamp'] !== 'string' || typeof r['node'] !== 'string' || typeof r['stdin'] !== 'boolean') return undefined;
  return value as ExecRequest;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether something listens on `socket` (a live server; a stale socket file refuses). */
export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Writes `text` to `file` with mode 0600 atomically (a reader sees all of it or the old file). */
function writePrivateFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temp, file);
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
