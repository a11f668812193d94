// One child process that will run one program: its sandbox launch (through spawnConfined), its
// control channel and stdio, its exit and its cleanup. Started ahead of time by the pool (or on
// demand); a run attaches a listener once it is ready. Whatever happens, dispose() kills the whole
// tree and resolves once none of it can run code again; the rest of the cleanup (the exit event, the
// private temp dir made only where the backend has no private /tmp of its own, the pids group)
// follows, and `cleanedUp` resolves when it is done (docs/runtime-lifecycle.md, "Settling").

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { HarnessError, RuntimeUnavailableError } from '../errors.js';
import type { SandboxMode, SandboxReport } from '../ptc-runtime/types.js';
import { BOOTSTRAP_INPUT_ARGS, bootstrapSource } from './bootstrap-source.js';
import { encodeFrame, parseChildFrame, type ChildFrame, type HostFrame } from './frames.js';
import { LineDecoder } from './line-decoder.js';
import { residentBytes } from '../sandbox/proc-tree.js';
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
import type { LaunchPlan } from '../sandbox/types.js';
import { clearCachedProbe } from '../sandbox/probe-cache.js';
import { PhaseRecorder, type PhaseTrace, type RunPhase } from './trace.js';

/** A process event, for diagnostics and tests (which pids belong to which run). */
export interface ChildProcessEvent {
  /** `spawn`: a child started (maybe ahead of time); `run`: it was given a program; `exit`: it is gone. */
  readonly type: 'spawn' | 'run' | 'exit';
  /** The spawned process (bwrap when sandboxed; its process group is killed at settlement). */
  readonly pid: number;
  /** The Node process running the program (differs from `pid` under bwrap); known from `run` on. */
  readonly programPid?: number;
}

/** How to start children; fixed per runtime and policy. */
export interface ChildLaunchOptions {
  readonly mode: SandboxMode;
  readonly nodePath: string;
  readonly memoryMb: number;
  readonly processes: boolean;
  readonly maxFrameBytes: number;
  readonly maxStdioBytes: number;
  readonly exitDrainGraceMs: number;
  /** What the program may read, write and reach (the run's widenings applied). */
  readonly policy: WorkspacePolicy;
  /** Tasks alive at once in the sandbox (pids group, bwrap only, where one can be made). */
  readonly maxTasks: number;
  /** Size of bwrap's private /tmp (the program's TMPDIR there), in bytes. */
  readonly tmpMaxBytes: number;
  readonly onProcess?: ((event: ChildProcessEvent) => void) | undefined;
  /** Receives the phases of each child that ran a program (tracing on); undefined: tracing off. */
  readonly onPhases?: ((trace: PhaseTrace) => void) | undefined;
}

export interface ChildExit {
  /** The exit code the program's process chose; null when a signal ended it. */
  readonly code: number | null;
  /**
   * The signal that ended the program's process. Truthful under bwrap too: there the exit-status rule
   * of the seccomp filter makes 128 + N mean signal N (docs/sandbox.md, "Memory"), and it is decoded here.
   */
  readonly signal: NodeJS.Signals | null;
  /** The tail of the child's real stderr (crash reports, V8's out-of-memory message). */
  readonly stderr: string;
  /** The largest resident size the watchdog saw, in bytes (0 when never sampled). */
  readonly peakResidentBytes: number;
}

/** What a run hears from its child. */
export interface ChildListener {
  onFrame(frame: ChildFrame, bytes: number): void;
  /** A line that is not a valid frame, or an oversize line: PROTOCOL. */
  onBadFrame(reason: string): void;
  /** The process exited and its channel was drained (or the drain grace passed). */
  onExit(exit: ChildExit): void;
}

/**
 * The runtime's own experimental features (dynamic import in vm scripts, the permission model) must
 * not print warnings into the program's captured stderr. Node older than 20.11 lacks the flag, so it
 * is only passed to the host's own Node binary, whose flags we can ask.
 */
function quietFlags(nodePath: string): string[] {
  return nodePath === process.execPath && process.allowedNodeEnvironmentFlags.has('--disable-warning')
    ? ['--disable-warning=ExperimentalWarning']
    : [];
}
/** Children whose processes may still exist: killed synchronously if the host exits. */
const live = new Set<ProgramChild>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.killNow();
    for (const child of live) child.removeTempDirNow();
  });
}

export class ProgramChild {
  readonly #options: ChildLaunchOptions;
  readonly #decoder: LineDecoder;
  /** Resolves once the bootstrap said `ready`; rejects (HarnessError) if the launch fails first. */
  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #rejectReady!: (error: HarnessError) => void;
  #readyDone = false;
  #proc: ChildProcess | undefined;
  #confined: ConfinedProcess | undefined;
  #signalExitCodes = false;
  #peakResident = 0;
  #channel: Socket | undefined;
  #tmpDir: string | undefined;
  #sandbox: SandboxReport | undefined;
  #programPid: number | undefined;
  #listener: ChildListener | undefined;
  #broken: string | undefined;
  #exit: ChildExit | undefined;
  #exitNotified = false;
  #channelEnded = false;
  #stderrTail = '';
  #disposing: Promise<void> | undefined;
  readonly #launching: Promise<void>;
  readonly #trace: PhaseRecorder | undefined;
  /** Resolves (never rejects) once the cleanup after dispose() is done. */
  readonly cleanedUp: Promise<void>;
  #cleaned!: () => void;

  constructor(options: ChildLaunchOptions) {
    this.#options = options;
    this.#trace = options.onPhases === undefined ? undefined : new PhaseRecorder(options.onPhases);
    this.#trace?.mark('spawn');
    this.cleanedUp = new Promise<void>((resolve) => {
      this.#cleaned = resolve;
    });
    this.#decoder = new LineDecoder(options.maxFrameBytes);
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    // A pooled child nobody awaits yet must not surface as an unhandled rejection. Once ready, the
    // process chain is complete: find the program's pid now, off the run's hot path.
    this.ready.then(() => this.#recordChain(), () => undefined);
    live.add(this);
    installExitHook();
    this.#launching = this.#launch().catch((error: unknown) => {
      this.#failReady(error instanceof HarnessError ? error : new RuntimeUnavailableError(`Could not start the program process: ${errorText(error)}`));
    });
  }

  /** The sandbox the child runs under; known once the launch was planned. */
  get sandbox(): SandboxReport | undefined {
    return this.#sandbox;
  }

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  get programPid(): number | undefined {
    return this.#programPid;
  }

  /** Ready and usable: launched, said `ready`, not exited, no stray frame seen. */
  get usable(): boolean {
    return this.#readyDone && this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined;
  }

  /** Still usable or on its way there. */
  get viable(): boolean {
    return this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined;
  }

  async #launch(): Promise<void> {
    const o = this.#options;
    // Under bwrap TMPDIR is the sandbox's own size-capped /tmp and nothing is made on the host;
    // elsewhere a private host dir (uncapped), named so a later host can sweep it if this one dies.
    const backend = await selectBackend(o.mode, 'node');
    if (backend !== 'bwrap' && this.#disposing === undefined) this.#tmpDir = mkdtempSync(runTempDirPrefix());
    const tmp = this.#tmpDir;
    const plan: LaunchPlan = await planLaunch({
      kind: 'node',
      command: o.nodePath,
      args: [`--max-old-space-size=${o.memoryMb}`, ...quietFlags(o.nodePath), ...BOOTSTRAP_INPUT_ARGS],
      policy: sandboxPolicyOf(o.policy, defaultSandboxEnv(o.policy.cwd, tmp === undefined ? {} : { tmpDir: tmp }), tmp === undefined ? {} : { privateDir: tmp }),
      mode: o.mode,
      firstFreeFd: 4,
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
    this.#trace?.mark('spawned');
    this.#trace?.pid(confined.pid);
    const proc = confined.child;
    this.#confined = confined;
    this.#proc = proc;
    proc.on('error', (error) => {
      this.#failReady(new RuntimeUnavailableError(`Could not start the program process (${plan.command}): ${error.message}`));
      this.#onExit(null, null);
    });
    proc.on('exit', (code, signal) => this.#onExit(code, signal));
    const [stdin, stdout, stderr, channel] = proc.stdio as unknown as [Writable, Readable, Readable, Socket];
    this.#channel = channel;
    stdin.on('error', () => undefined);
    channel.on('error', () => undefined);
    stdout.on('error', () => undefined);
    stderr.on('error', () => undefined);
    // The real stdout is not part of the result (console and process.stdout are captured over fd 3);
    // drain it so a program writing to fd 1 directly never blocks.
    stdout.resume();
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-o.maxStdioBytes);
    });
    channel.on('data', (chunk: Buffer) => this.#onData(chunk));
    channel.on('end', () => this.#onChannelEnd());
    channel.on('close', () => this.#onChannelEnd());
    // The bootstrap arrives on stdin; its end is the program's stdin EOF.
    stdin.end(bootstrapSource());
    if (proc.pid !== undefined) o.onProcess?.({ type: 'spawn', pid: proc.pid });
    this.#setRef(false);
  }

  #failReady(error: HarnessError): void {
    if (this.#readyDone) return;
    this.#readyDone = true;
    this.#rejectReady(error);
  }

  #onData(chunk: Buffer): void {
    // Total by construction (docs/control-channel.md): whatever a frame makes the host's handlers
    // throw ends this run as PROTOCOL instead of escaping into the socket's event handler.
    try {
      const decoded = this.#decoder.push(chunk);
      for (const line of decoded.lines) this.#onLine(line);
      if (!decoded.ok) {
        this.#bad(`a control frame exceeded ${this.#options.maxFrameBytes} bytes (${decoded.bytes} bytes and counting)`);
      }
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
        this.#trace?.mark('ready');
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
    if (this.#trace !== undefined && parsed.frame.type === 'done') this.#trace.mark('done');
    this.#listener.onFrame(parsed.frame, Buffer.byteLength(line, 'utf8'));
  }

  #bad(reason: string): void {
    if (this.#listener !== undefined) {
      this.#listener.onBadFrame(reason);
      return;
    }
    // Nobody runs on this child yet: it can never be used.
    this.#broken ??= reason;
    this.#failReady(new RuntimeUnavailableError(`The program process misbehaved while starting: ${reason}`));
    void this.dispose();
  }

  #onExit(rawCode: number | null, rawSignal: NodeJS.Signals | null): void {
    if (this.#exit !== undefined) return;
    this.#trace?.mark('exit');
    const { code, signal } = this.#signalExitCodes ? decodeSignalExit(rawCode, rawSignal) : { code: rawCode, signal: rawSignal };
    this.#exit = { code, signal, stderr: this.#stderrTail, peakResidentBytes: this.#peakResident };
    // bwrap itself refused to start (it prefixes its errors): a remembered probe success is stale.
    if (!this.#readyDone && this.#sandbox?.backend === 'bwrap' && this.#stderrTail.includes('bwrap:')) clearCachedProbe();
    this.#failReady(
      new RuntimeUnavailableError(
        `The program process exited before it was ready (${describeExit(code, signal)})${tailNote(this.#stderrTail)}`,
      ),
    );
    const pid = this.#proc?.pid;
    if (pid !== undefined) this.#options.onProcess?.({ type: 'exit', pid, ...(this.#programPid === undefined ? {} : { programPid: this.#programPid }) });
    if (this.#channelEnded || this.#channel === undefined) {
      this.#notifyExit();
      return;
    }
    // Frames written just before the exit may still sit in the pipe: read them first, but do not wait
    // forever for a descendant that holds the channel open.
    const timer = setTimeout(() => this.#notifyExit(), this.#options.exitDrainGraceMs);
    timer.unref();
  }

  #onChannelEnd(): void {
    if (this.#channelEnded) return;
    this.#channelEnded = true;
    if (this.#exit !== undefined) {
      this.#notifyExit();
      return;
    }
    // A program that closed fd 3 can never report again: end its run now rather than at the deadline,
    // once an exit that merely closed the channel first had its chance to arrive.
    const timer = setTimeout(() => {
      if (this.#exit === undefined && this.#listener !== undefined) this.#bad('the program closed its control channel');
    }, this.#options.exitDrainGraceMs);
    timer.unref();
  }

  #notifyExit(): void {
    if (this.#exitNotified || this.#exit === undefined) return;
    this.#exitNotified = true;
    this.#listener?.onExit({ ...this.#exit, stderr: this.#stderrTail, peakResidentBytes: this.#peakResident });
  }

  /** The chain from the spawned process down to the program's own Node process (under bwrap: monitor, init, node). */
  #recordChain(): void {
    if (this.#programPid !== undefined || this.#confined === undefined) return;
    const chain = this.#confined.recordChain();
    if (chain.length > 0) this.#programPid = chain[chain.length - 1] as number;
  }

  /** Hands the ready child to a run; frames and the exit now go to `listener`. */
  attach(listener: ChildListener): void {
    this.#listener = listener;
    this.#setRef(true);
    const pid = this.#proc?.pid;
    this.#recordChain();
    if (pid !== undefined && this.#programPid !== undefined) {
      this.#options.onProcess?.({ type: 'run', pid, programPid: this.#programPid });
    }
    if (this.#exit !== undefined) this.#notifyExit();
  }

  /**
   * Writes one frame (`encoded` is its line when the caller already has it) and returns the bytes now
   * queued on the channel that the child has not read yet, so a run can bound them.
   */
  send(frame: HostFrame, encoded?: string): number {
    const channel = this.#channel;
    if (channel === undefined || channel.destroyed || this.#exit !== undefined) return 0;
    // A Buffer, so that writableLength counts bytes (for a string it counts UTF-16 code units).
    channel.write(Buffer.from(encoded ?? encodeFrame(frame), 'utf8'));
    if (this.#trace !== undefined && frame.type === 'run') this.#trace.mark('sent');
    return channel.writableLength;
  }

  /** The program process's resident memory in bytes (undefined when unknown or gone). */
  residentBytes(): number | undefined {
    const pid = this.#programPid;
    const bytes = pid === undefined ? undefined : residentBytes(pid);
    // Evidence for a V8 out-of-memory abort: a fake one never got near the heap limit.
    if (bytes !== undefined && bytes > this.#peakResident) this.#peakResident = bytes;
    return bytes;
  }

  /** Remembers the current descendants so a later kill reaches those that left the process group. */
  trackDescendants(): void {
    if (this.#exit === undefined) this.#confined?.trackDescendants();
  }

  get exitInfo(): ChildExit | undefined {
    return this.#exit === undefined ? undefined : { ...this.#exit, stderr: this.#stderrTail, peakResidentBytes: this.#peakResident };
  }

  /**
   * SIGKILL to the process group, to the remembered chain (under bwrap the program's own process would
   * otherwise wait for the namespace teardown) and descendants, and to the run's pids group.
   */
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

  /** Records a phase of this child's run (tracing on only; the runtime marks `take` and `result`). */
  mark(phase: RunPhase): void {
    this.#trace?.mark(phase);
  }

  /**
   * Kills everything and resolves once no process of the child can run code again: right after the
   * kill when /proc shows the sandbox's pid namespace empty, else after the full wait for the exit
   * (docs/runtime-lifecycle.md, "Settling"). The cleanup goes on after it; see `cleanedUp`.
   */
  dispose(): Promise<void> {
    this.#disposing ??= this.#dispose();
    return this.#disposing;
  }

  async #dispose(): Promise<void> {
    try {
      await this.#launching;
      this.#failReady(new RuntimeUnavailableError('The program process was ended before it was ready.'));
      const confined = this.#confined;
      if (this.#proc !== undefined && confined !== undefined) {
        // Whoever awaits the disposal keeps the host alive until the exit arrives.
        this.#setRef(true);
        confined.killTree();
        this.#trace?.mark('kill');
        // Not inside the optional call: its argument would not be evaluated with tracing off.
        const how = await confined.settled();
        this.#trace?.settled(how);
        this.#trace?.mark('empty');
      }
    } finally {
      void this.#cleanup().finally(() => this.#cleaned());
    }
  }

  /** The exit event, the pids group, the streams and the temp dir, after the child settled; bounded by waitGone(). */
  async #cleanup(): Promise<void> {
    try {
      const proc = this.#proc;
      const confined = this.#confined;
      if (proc !== undefined && confined !== undefined) {
        await confined.waitGone();
        for (const stream of proc.stdio) (stream as Readable | Writable | null)?.destroy();
      }
      if (this.#tmpDir !== undefined) await rm(this.#tmpDir, { recursive: true, force: true }).catch(() => undefined);
      this.#trace?.mark('tmp');
    } finally {
      live.delete(this);
      this.#trace?.finish();
    }
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

/** bwrap's 128 + N, trusted only when the plan made it truthful (LaunchPlan.signalExitCodes). */
function decodeSignalExit(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const number = code - 128;
  const name = (Object.keys(osConstants.signals) as NodeJS.Signals[]).find((key) => osConstants.signals[key] === number);
  return name === undefined ? { code, signal } : { code: null, signal: name };
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `killed by ${signal}`;
  return `exit code ${String(code)}`;
}

function tailNote(stderr: string): string {
  const tail = stderr.trim().split('\n').slice(-5).join('\n').slice(-600);
  return tail === '' ? '' : `: ${tail}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
