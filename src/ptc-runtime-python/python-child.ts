// One python3 process that runs programs: its sandbox launch (through spawnConfined), its control
// channel and stdio, its exit and its cleanup. Started ahead of time by the warm pool or on demand.
// Unlike a Node child it may run more than one program (in-memory mode keeps it between runs), so a
// run attaches a listener and detaches it when it settles. dispose() kills the whole tree, waits until
// it is gone and removes the private temp dir (made only where the backend has no private /tmp).

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { HarnessError, RuntimeUnavailableError } from '../errors.js';
import type { SandboxMode, SandboxReport } from '../ptc-runtime/types.js';
import { parseChildFrame, type ChildFrame } from '../ptc-runtime-node/frames.js';
import { LineDecoder } from '../ptc-runtime-node/line-decoder.js';
import {
  defaultSandboxEnv,
  planLaunch,
  runTempDirPrefix,
  sandboxPolicyOf,
  selectBackend,
  spawnConfined,
  type ConfinedProcess,
  type WorkspacePolicy,
} from '../sandbox/index.js';
import { residentBytes } from '../sandbox/proc-tree.js';
import { PYTHON_BOOTSTRAP } from './child/bootstrap-source.js';
import { detectPython } from './detect.js';
import type { PythonProcessEvent } from './options.js';

/**
 * -I: ignore PYTHON* variables and the user's site dir; -S: no site-packages (the standard library
 * only); -B: write no .pyc into the workspace; -X utf8: UTF-8 whatever the locale; `-`: the bootstrap
 * comes on stdin.
 */
export const PYTHON_ARGS: readonly string[] = ['-I', '-S', '-B', '-X', 'utf8', '-'];

export interface PythonLaunchOptions {
  readonly mode: SandboxMode;
  readonly pythonPath: string;
  readonly processes: boolean;
  readonly maxFrameBytes: number;
  readonly maxStdioBytes: number;
  readonly exitDrainGraceMs: number;
  readonly policy: WorkspacePolicy;
  readonly maxTasks: number;
  readonly tmpMaxBytes: number;
  readonly onProcess?: ((event: PythonProcessEvent) => void) | undefined;
}

export interface PythonExit {
  readonly code: number | null;
  /** Truthful under bwrap too (the seccomp exit rule, docs/sandbox.md "Memory"). */
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** What a run hears from its child. */
export interface PythonListener {
  onFrame(frame: ChildFrame, bytes: number): void;
  onBadFrame(reason: string): void;
  onExit(exit: PythonExit): void;
}

const live = new Set<PythonChild>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.killNow();
    for (const child of live) child.removeTempDirNow();
  });
}

export class PythonChild {
  readonly #options: PythonLaunchOptions;
  readonly #decoder: LineDecoder;
  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #rejectReady!: (error: HarnessError) => void;
  #readyDone = false;
  #proc: ChildProcess | undefined;
  #confined: ConfinedProcess | undefined;
  #signalExitCodes = false;
  #channel: Socket | undefined;
  #tmpDir: string | undefined;
  #sandbox: SandboxReport | undefined;
  #programPid: number | undefined;
  #listener: PythonListener | undefined;
  #broken: string | undefined;
  #exit: PythonExit | undefined;
  #channelEnded = false;
  #stderrTail = '';
  #disposing: Promise<void> | undefined;
  #runs = 0;
  readonly #launching: Promise<void>;

  constructor(options: PythonLaunchOptions) {
    this.#options = options;
    this.#decoder = new LineDecoder(options.maxFrameBytes);
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.then(() => this.#recordChain(), () => undefined);
    live.add(this);
    installExitHook();
    this.#launching = this.#launch().catch((error: unknown) => {
      this.#failReady(error instanceof HarnessError ? error : new RuntimeUnavailableError(`Could not start python3: ${errorText(error)}`));
    });
  }

  get sandbox(): SandboxReport | undefined {
    return this.#sandbox;
  }

  get programPid(): number | undefined {
    return this.#programPid;
  }

  /** Programs this process has been given. */
  get runs(): number {
    return this.#runs;
  }

  /** Ready, not running a program, not exited, no stray frame seen. */
  get usable(): boolean {
    return this.#readyDone && this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined && this.#listener === undefined;
  }

  get viable(): boolean {
    return this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined;
  }

  async #launch(): Promise<void> {
    const o = this.#options;
    const python = await detectPython(o.pythonPath);
    const backend = await selectBackend(o.mode, 'exec');
    if (backend !== 'bwrap' && this.#disposing === undefined) this.#tmpDir = mkdtempSync(runTempDirPrefix());
    const tmp = this.#tmpDir;
    const env = defaultSandboxEnv(o.policy.cwd, tmp === undefined ? {} : { tmpDir: tmp });
    if (!python.binDir.startsWith('/usr/')) env['PATH'] = `${python.binDir}:${env['PATH'] ?? '/usr/bin:/bin'}`;
    const plan = await planLaunch({
      kind: 'exec',
      command: python.executable,
      args: [...PYTHON_ARGS],
      policy: sandboxPolicyOf(o.policy, env, tmp === undefined ? {} : { privateDir: tmp }),
      mode: o.mode,
      firstFreeFd: 4,
      runtimeReadPaths: python.readPaths,
      tmpMaxBytes: o.tmpMaxBytes,
      truthfulExit: true,
    });
    this.#sandbox = { backend: plan.backend, enforced: plan.enforced };
    if (this.#disposing !== undefined) {
      plan.release();
      return;
    }
    this.#signalExitCodes = plan.signalExitCodes;
    const confined = spawnConfined(plan, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], maxTasks: o.maxTasks });
    const proc = confined.child;
    this.#confined = confined;
    this.#proc = proc;
    proc.on('error', (error) => {
      this.#failReady(new RuntimeUnavailableError(`Could not start python3 (${plan.command}): ${error.message}`));
      this.#onExit(null, null);
    });
    proc.on('exit', (code, signal) => this.#onExit(code, signal));
    const [stdin, stdout, stderr, channel] = proc.stdio as unknown as [Writable, Readable, Readable, Socket];
    this.#channel = channel;
    for (const stream of [stdin, stdout, stderr, channel]) stream.on('error', () => undefined);
    // print() and logging reach the host over fd 3; what a subprocess writes to fd 1 is drained.
    stdout.resume();
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-o.maxStdioBytes);
    });
    channel.on('data', (chunk: Buffer) => this.#onData(chunk));
    channel.on('end', () => this.#onChannelEnd());
    channel.on('close', () => this.#onChannelEnd());
    stdin.end(PYTHON_BOOTSTRAP);
    if (proc.pid !== undefined) o.onProcess?.({ type: 'spawn', pid: proc.pid });
    this.#setRef(false);
  }

  #failReady(error: HarnessError): void {
    if (this.#readyDone) return;
    this.#readyDone = true;
    this.#rejectReady(error);
  }

  #onData(chunk: Buffer): void {
    try {
      const decoded = this.#decoder.push(chunk);
      for (const line of decoded.lines) this.#onLine(line);
      if (!decoded.ok) this.#bad(`a control frame exceeded ${this.#options.maxFrameBytes} bytes (${decoded.bytes} bytes and counting)`);
    } catch (error) {
      this.#bad(`the host could not handle a control frame: ${errorText(error)}`);
    }
  }

  #onLine(line: string): void {
    const parsed = parseChildFrame(line);
    if (!parsed.ok) {
      this.#bad(`bad control frame: ${parsed.reason}`);
      return;
    }
    if (!this.#readyDone) {
      if (parsed.frame.type === 'ready') {
        this.#readyDone = true;
        this.#resolveReady();
      } else {
        this.#bad(`a ${parsed.frame.type} frame before the child was ready`);
      }
      return;
    }
    if (this.#listener === undefined) {
      this.#bad(`an unexpected ${parsed.frame.type} frame from an idle child`);
      return;
    }
    this.#listener.onFrame(parsed.frame, Buffer.byteLength(line, 'utf8'));
  }

  #bad(reason: string): void {
    if (this.#listener !== undefined) {
      this.#listener.onBadFrame(reason);
      return;
    }
    // Nobody runs on this child: it can never be used again (a frame between runs is a program's doing).
    this.#broken ??= reason;
    this.#failReady(new RuntimeUnavailableError(`The python3 process misbehaved while starting: ${reason}`));
    void this.dispose();
  }

  #onExit(rawCode: number | null, rawSignal: NodeJS.Signals | null): void {
    if (this.#exit !== undefined) return;
    const { code, signal } = this.#signalExitCodes ? decodeSignalExit(rawCode, rawSignal) : { code: rawCode, signal: rawSignal };
    this.#exit = { code, signal, stderr: this.#stderrTail };
    this.#failReady(new RuntimeUnavailableError(`python3 exited before it was ready (${describeExit(code, signal)})${tailNote(this.#stderrTail)}`));
    const pid = this.#proc?.pid;
    if (pid !== undefined) this.#options.onProcess?.({ type: 'exit', pid, ...(this.#programPid === undefined ? {} : { programPid: this.#programPid }) });
    if (this.#channelEnded || this.#channel === undefined) {
      this.#notifyExit();
      return;
    }
    setTimeout(() => this.#notifyExit(), this.#options.exitDrainGraceMs).unref();
  }

  #onChannelEnd(): void {
    if (this.#channelEnded) return;
    this.#channelEnded = true;
    if (this.#exit !== undefined) {
      this.#notifyExit();
      return;
    }
    setTimeout(() => {
      if (this.#exit === undefined && this.#listener !== undefined) this.#bad('the program closed its control channel');
    }, this.#options.exitDrainGraceMs).unref();
  }

  #notifyExit(): void {
    if (this.#exit === undefined) return;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.onExit({ ...this.#exit, stderr: this.#stderrTail });
  }

  #recordChain(): void {
    if (this.#programPid !== undefined || this.#confined === undefined) return;
    const chain = this.#confined.recordChain();
    if (chain.length > 0) this.#programPid = chain[chain.length - 1] as number;
  }

  /** Hands the ready child to a run; frames and the exit go to `listener` until detach(). */
  attach(listener: PythonListener): void {
    this.#listener = listener;
    this.#runs++;
    this.#setRef(true);
    this.#recordChain();
    const pid = this.#proc?.pid;
    if (pid !== undefined && this.#programPid !== undefined) this.#options.onProcess?.({ type: 'run', pid, programPid: this.#programPid });
    if (this.#exit !== undefined) this.#notifyExit();
  }

  /** The run settled and keeps this process (in-memory mode): idle again, not keeping the host alive. */
  detach(): void {
    this.#listener = undefined;
    this.#setRef(false);
  }

  /** Writes one line; returns the bytes queued on the channel that the child has not read yet. */
  send(line: string): number {
    const channel = this.#channel;
    if (channel === undefined || channel.destroyed || this.#exit !== undefined) return 0;
    channel.write(Buffer.from(line, 'utf8'));
    return channel.writableLength;
  }

  residentBytes(): number | undefined {
    const pid = this.#programPid;
    return pid === undefined ? undefined : residentBytes(pid);
  }

  trackDescendants(): void {
    if (this.#exit === undefined) this.#confined?.trackDescendants();
  }

  killNow(): void {
    this.#confined?.killTree();
  }

  removeTempDirNow(): void {
    if (this.#tmpDir === undefined) return;
    try {
      rmSync(this.#tmpDir, { recursive: true, force: true });
    } catch {
      // Best effort on host exit.
    }
  }

  dispose(): Promise<void> {
    this.#disposing ??= this.#dispose();
    return this.#disposing;
  }

  async #dispose(): Promise<void> {
    await this.#launching;
    this.#failReady(new RuntimeUnavailableError('The python3 process was ended before it was ready.'));
    const proc = this.#proc;
    const confined = this.#confined;
    if (proc !== undefined && confined !== undefined) {
      this.#setRef(true);
      confined.killTree();
      await confined.waitGone();
      for (const stream of proc.stdio) (stream as Readable | Writable | null)?.destroy();
    }
    if (this.#tmpDir !== undefined) await rm(this.#tmpDir, { recursive: true, force: true }).catch(() => undefined);
    live.delete(this);
  }

  #setRef(ref: boolean): void {
    const proc = this.#proc;
    if (proc === undefined) return;
    if (ref) proc.ref();
    else proc.unref();
    for (const stream of proc.stdio) {
      const handle = stream as (Readable & { ref?: () => void; unref?: () => void }) | null;
      if (ref) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

function decodeSignalExit(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const number = code - 128;
  const name = (Object.keys(osConstants.signals) as NodeJS.Signals[]).find((key) => osConstants.signals[key] === number);
  return name === undefined ? { code, signal } : { code: null, signal: name };
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `killed by ${signal}` : `exit code ${String(code)}`;
}

function tailNote(stderr: string): string {
  const tail = stderr.trim().split('\n').slice(-5).join('\n').slice(-600);
  return tail === '' ? '' : `: ${tail}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
