// The spawner (docs/sandbox.md, "The spawner"): one python3 helper per host process that starts bwrap
// launches with posix_spawn, so the host never forks itself for a sandbox. libuv's spawn() forks the
// whole host, which blocks its event loop for a time that grows with the host's memory (7-18 ms here,
// 49 ms at 468 MB); a vfork from a 10 MB helper takes the same ~1.5 ms whatever the host's size.
//
// The helper cannot hand the host the ends of pipes it makes, so the streams the host reads are
// Unix sockets the helper connects to a server of the host's (in a dir of the host's private root,
// private-dir.ts, that no sandbox can write; and the helper checks the listener is the host) before it
// spawns: each starts with a line naming its launch (a random token) and its role, and the child gets
// the other end as fd 2 (stderr) and fd 3 (the control channel). The child's stdin is a pipe the
// helper fills with the given text; its stdout is /dev/null. The helper reports each pid and, from
// a reaper thread, each exit's raw wait status. It dies with the host (PR_SET_PDEATHSIG and the end of
// its stdin), and bwrap's --die-with-parent then ends every sandbox it started.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { coverInheritedFds, inheritedFdCovering } from './inherited-fds.js';
import { decodeWaitStatus, SpawnedProcess } from './spawned-process.js';
import { SPAWNER_SOURCE } from './spawner-source.js';
import { makePrivateDir, privateRoot } from './private-dir.js';
import { SPAWN_REPLY_TIMEOUT_MS, MAX_SPAWNER_HEADER_BYTES, MAX_SPAWNER_STARTS } from './limits.js';

export { decodeWaitStatus, signalName, SpawnedProcess } from './spawned-process.js';


/** What the spawner starts: the command, its environment, its stdin text, and one fd of bytes. */
export interface SpawnerRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Written to the child's stdin, which then ends. */
  readonly stdin: string;
  /** A read-only fd at `fd` holding `bytes` (bwrap's seccomp filter), when the plan passes one. */
  readonly passFd?: { readonly fd: number; readonly bytes: Uint8Array };
}

interface PendingLaunch {
  readonly id: number;
  readonly resolve: (process: SpawnedProcess) => void;
  readonly reject: (error: Error) => void;
  pid?: number;
  stderr?: Socket;
  channel?: Socket;
  readonly timer: NodeJS.Timeout;
}

class Spawner {
  readonly #helper: ChildProcess;
  readonly #server: Server;
  readonly #dir: string;
  readonly #socketPath: string;
  readonly #byToken = new Map<string, PendingLaunch>();
  readonly #byId = new Map<number, string>();
  readonly #live = new Map<number, SpawnedProcess>();
  #nextId = 1;
  /** Launches waiting for a reply plus live processes that keep the host alive. */
  #refCount = 0;
  #dead = false;
  #retired = false;
  /** The server listens, and the helper said it runs: both are needed before a launch may use it. */
  #listening = false;
  #helperUp = false;
  #stdout = '';

  constructor(python: string, checkPeer: boolean, coverFds: boolean) {
    this.#dir = makePrivateDir('spawner');
    this.#socketPath = join(this.#dir, 's');
    this.#server = createServer((socket) => this.#onConnection(socket));
    this.#server.on('error', () => this.#die());
    this.#server.listen(this.#socketPath, () => {
      this.#listening = true;
    });
    this.#server.unref();
    // A host that exits normally takes its socket dir along (the helper ends with the host's pipe).
    process.once('exit', this.#removeDir);
    // The helper closes every fd but its stdio when it starts, so what it spawns holds only the
    // launch's fds; until then it holds /dev/null where the host has an inherited descriptor.
    const flags = [...(checkPeer ? [] : ['no-peer-check']), ...(coverFds ? [] : ['keep-fds'])];
    this.#helper = spawn(python, ['-I', '-S', '-B', '-X', 'utf8', '-c', SPAWNER_SOURCE, String(process.pid), ...flags], {
      stdio: coverInheritedFds(['pipe', 'pipe', 'ignore']),
      env: {},
    });
    this.#helper.on('error', () => this.#die());
    this.#helper.on('exit', () => this.#die());
    this.#helper.stdin?.on('error', () => this.#die());
    this.#helper.stdout?.setEncoding('utf8');
    this.#helper.stdout?.on('data', (chunk: string) => this.#onOutput(chunk));
    this.#unrefHelper();
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** Up and listening: a launch sent now is answered without waiting for Python to start. */
  get ready(): boolean {
    return this.#listening && this.#helperUp && !this.#dead;
  }

  /**
   * True while the socket's dir is still in the verified private root: a launch whose policy made
   * that root writable moved it (private-dir.ts), and this spawner must not be used again.
   */
  inPrivateRoot(): boolean {
    try {
      return dirname(this.#dir) === privateRoot();
    } catch {
      return false;
    }
  }

  /**
   * Stops taking launches (its socket dir is no longer private): the server closes and the dir goes.
   * Its running children keep their streams; the helper ends with its stdin once none is left.
   */
  retire(): void {
    if (spawner === this) spawner = undefined;
    this.#retired = true;
    this.#server.close();
    process.off('exit', this.#removeDir);
    this.#removeDir();
    this.#endIfIdle();
  }

  #endIfIdle(): void {
    if (this.#retired && this.#live.size === 0 && this.#byToken.size === 0) this.#helper.stdin?.end();
  }

  spawn(request: SpawnerRequest): Promise<SpawnedProcess> {
    if (this.#dead || this.#retired) return Promise.reject(new Error('the spawner is gone'));
    const id = this.#nextId++;
    const token = randomBytes(16).toString('hex');
    const line = JSON.stringify({
      id,
      argv: [request.command, ...request.args],
      env: request.env,
      stdin: request.stdin,
      socket: this.#socketPath,
      token,
      passFd: request.passFd === undefined ? null : { fd: request.passFd.fd, bytes: Buffer.from(request.passFd.bytes).toString('base64') },
    });
    return new Promise<SpawnedProcess>((resolve, reject) => {
      const timer = setTimeout(() => this.#fail(token, new Error('the spawner did not answer in time')), SPAWN_REPLY_TIMEOUT_MS);
      this.#byToken.set(token, { id, resolve, reject, timer });
      this.#byId.set(id, token);
      this.#ref();
      this.#helper.stdin?.write(`${line}\n`);
    });
  }

  #onConnection(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    // The helper writes the header before it spawns; a connection without one is not the helper's.
    socket.setTimeout(SPAWN_REPLY_TIMEOUT_MS, () => socket.destroy());
    let header = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      header = Buffer.concat([header, chunk]);
      const newline = header.indexOf(0x0a);
      if (newline === -1) {
        if (header.length > MAX_SPAWNER_HEADER_BYTES) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      socket.setTimeout(0);
      const [token = '', role = ''] = header.subarray(0, newline).toString('latin1').split(' ');
      const launch = this.#byToken.get(token);
      if (launch === undefined || (role !== 'stderr' && role !== 'channel') || launch[role] !== undefined) {
        socket.destroy();
        return;
      }
      // What the child wrote after the header belongs to the stream.
      const rest = header.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      launch[role] = socket;
      this.#complete(token);
    };
    socket.on('data', onData);
  }

  #onOutput(chunk: string): void {
    this.#stdout += chunk;
    let newline = this.#stdout.indexOf('\n');
    while (newline !== -1) {
      const line = this.#stdout.slice(0, newline);
      this.#stdout = this.#stdout.slice(newline + 1);
      newline = this.#stdout.indexOf('\n');
      let message: { id?: number; pid?: number; error?: string; exit?: number; status?: number; ready?: boolean };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (message.ready === true) {
        this.#helperUp = true;
        continue;
      }
      if (message.exit !== undefined && message.status !== undefined) {
        const child = this.#live.get(message.exit);
        this.#live.delete(message.exit);
        child?.exited(...decodeWaitStatus(message.status));
        this.#endIfIdle();
        continue;
      }
      const token = message.id === undefined ? undefined : this.#byId.get(message.id);
      if (token === undefined || message.id === undefined) continue;
      this.#byId.delete(message.id);
      const launch = this.#byToken.get(token);
      if (launch === undefined) continue;
      if (message.pid !== undefined) {
        launch.pid = message.pid;
        this.#complete(token);
      } else this.#fail(token, new Error(`the spawner could not start the process: ${message.error ?? 'no reason given'}`));
    }
  }

  /** Resolves a launch once its pid and both sockets are in. */
  #complete(token: string): void {
    const launch = this.#byToken.get(token);
    if (launch === undefined || launch.pid === undefined || launch.stderr === undefined || launch.channel === undefined) return;
    this.#byToken.delete(token);
    clearTimeout(launch.timer);
    // The launch's own reference passes to the process, which holds it until ref()/unref() or its exit.
    const child = new SpawnedProcess(launch.pid, launch.stderr, launch.channel, () => this.#ref(), () => this.#unref());
    this.#live.set(launch.pid, child);
    launch.resolve(child);
  }

  #fail(token: string, error: Error): void {
    const launch = this.#byToken.get(token);
    if (launch === undefined) return;
    this.#byToken.delete(token);
    this.#byId.delete(launch.id);
    clearTimeout(launch.timer);
    launch.stderr?.destroy();
    launch.channel?.destroy();
    // Started but never complete: end it (its sandbox dies with bwrap's monitor), it is not the caller's.
    if (launch.pid !== undefined) killGroup(launch.pid);
    this.#unref();
    launch.reject(error);
  }

  #ref(): void {
    if (this.#refCount++ === 0) {
      this.#helper.ref();
      (this.#helper.stdout as Socket | null)?.ref();
    }
  }

  #unref(): void {
    if (--this.#refCount === 0) this.#unrefHelper();
  }

  #unrefHelper(): void {
    this.#helper.unref();
    (this.#helper.stdout as Socket | null)?.unref();
    (this.#helper.stdin as Socket | null)?.unref();
  }

  /** The helper is gone: pending launches fail (their callers fall back); bwrap ended its sandboxes. */
  #die(): void {
    if (this.#dead) return;
    this.#dead = true;
    if (spawner === this) spawner = undefined;
    for (const token of [...this.#byToken.keys()]) this.#fail(token, new Error('the spawner exited'));
    // --die-with-parent: every bwrap it started was sent SIGKILL when it died.
    for (const child of this.#live.values()) child.exited(null, 'SIGKILL');
    this.#live.clear();
    this.#server.close();
    process.off('exit', this.#removeDir);
    this.#removeDir();
  }

  readonly #removeDir = (): void => {
    rmSync(this.#dir, { recursive: true, force: true });
  };
}

function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

let spawner: Spawner | undefined;
let disabled = process.env['PTC_SPAWNER'] === 'off';
let checkPeer = true;
/** Launches asked for so far: the helper starts at the second, so a one-shot host never starts it. */
let launches = 0;
/** Helpers that died; after MAX_SPAWNER_STARTS the host spawns by itself for good. */
let starts = 0;

/** Turns the spawner off (or back on) for this process; returns the previous setting (for tests). */
export function setSpawnerEnabled(enabled: boolean): boolean {
  const before = !disabled;
  disabled = !enabled;
  return before;
}

/**
 * Tests only (the controls of test/integration/hostile-host-state.test.ts): helpers started from now
 * on connect without checking that the listener is the host, as before the check existed.
 */
export function setSpawnerPeerCheck(on: boolean): void {
  checkPeer = on;
}

/** The python3 the spawner runs, or undefined when there is none. */
function findPython(): string | undefined {
  for (const candidate of ['/usr/bin/python3', '/usr/local/bin/python3']) if (existsSync(candidate)) return candidate;
  return undefined;
}

/**
 * Starts `request` through the spawner, or resolves undefined when it is not up (turned off, no
 * python3, still starting, or it failed): the caller then spawns by itself. The helper is started in
 * the background at the second launch of the process.
 */
export async function spawnThroughHelper(request: SpawnerRequest): Promise<SpawnedProcess | undefined> {
  if (disabled) return undefined;
  launches++;
  if (spawner !== undefined && !spawner.inPrivateRoot()) {
    spawner.retire();
    starts--; // Not a death: a new helper may start in the new root.
  }
  if (spawner?.ready !== true) {
    if ((spawner === undefined || spawner.dead) && launches >= 2 && starts < MAX_SPAWNER_STARTS) {
      const python = findPython();
      if (python !== undefined) {
        starts++;
        try {
          spawner = new Spawner(python, checkPeer, inheritedFdCovering());
        } catch {
          spawner = undefined; // No private dir or socket here: the host spawns by itself.
        }
      }
    }
    return undefined;
  }
  try {
    return await spawner.spawn(request);
  } catch {
    return undefined;
  }
}
