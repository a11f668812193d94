// One child process that runs programs, for any interpreter: its sandbox launch (through
// sandbox.launch, docs/sandbox-launch.md), its control channel and stdio, its exit and its cleanup. Started ahead of time by
// the pool (or on demand); a run attaches a listener once it is ready and, when an in-memory run
// keeps the process, detaches it again. The language provider says only what to start
// (ChildCommand). Whatever happens, dispose() kills the whole tree and resolves once none of it can
// run code again; the rest of the cleanup (the exit event, the private temp dir made only where the
// backend has no private /tmp, the pids group) follows, and `cleanedUp` resolves when it is done
// (docs/runtime-lifecycle.md, "Settling").

import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { HarnessError, RuntimeUnavailableError } from '../errors.js';
import type { SandboxReport } from '../ptc-runtime/types.js';
import { parseChildFrame, type ChildFrame, type HostFrame } from './frames.js';
import { ChildStreams, type ChildStdio } from './child-streams.js';
import { forgetLive, holdHost, trackLive } from './live-children.js';
import {
  makePrivateDir,
  reportStartFailure,
  residentBytes,
  type ConfinedProcess,
  type Launched,
  type MemoryMechanism,
  type ProgramStdio,
  type SpawnedProcess,
} from '../sandbox/index.js';
import { decodeSignalExit, describeExit, tailNote, type ChildExit } from './child-exit.js';
import { launchChild, type ChildLaunchOptions } from './child-launch.js';
import { PhaseRecorder, type RunPhase } from './trace.js';

/** What a run hears from its child. */
export interface ChildListener {
  onFrame(frame: ChildFrame, bytes: number): void;
  /** A line that is not a valid frame, or an oversize line: PROTOCOL. */
  onBadFrame(reason: string): void;
  /** The process exited and its channel was drained (or the drain grace passed). */
  onExit(exit: ChildExit): void;
}

export class ProcessChild {
  readonly #options: ChildLaunchOptions;
  /** Resolves once the bootstrap said `ready`; rejects (HarnessError) if the launch fails first. */
  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #rejectReady!: (error: HarnessError) => void;
  #readyDone = false;
  #proc: ChildProcess | SpawnedProcess | undefined;
  #confined: ConfinedProcess<ChildProcess | SpawnedProcess> | undefined;
  #signalExitCodes = false;
  #peakResident = 0;
  #streams: ChildStreams | undefined;
  #tmpDir: string | undefined;
  #sandbox: SandboxReport | undefined;
  #programPid: number | undefined;
  #listener: ChildListener | undefined;
  #broken: string | undefined;
  #exit: ChildExit | undefined;
  #disposing: Promise<void> | undefined;
  /** A run was attached at least once (a kept process's later runs read the OOM count afresh). */
  #attachedOnce = false;
  #oomKillsAtReady: number | undefined;
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
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    // A pooled child nobody awaits yet must not surface as an unhandled rejection. Once ready, the
    // process chain is complete: find the program's pid now, off the run's hot path.
    this.ready.then(() => this.#recordChain(), () => undefined);
    trackLive(this);
    this.#launching = this.#launch().catch((error: unknown) => {
      this.#failReady(error instanceof HarnessError ? error : new RuntimeUnavailableError(`Could not start ${options.texts.start}: ${errorText(error)}`));
    });
  }

  /** The sandbox the child runs under; known once the launch was planned, with `memory` once it was launched. */
  get sandbox(): SandboxReport | undefined {
    const sandbox = this.#sandbox;
    if (sandbox === undefined || this.#confined === undefined) return sandbox;
    return { ...sandbox, memory: this.memoryMechanism };
  }

  /** How the memory limit covers this child's process tree (docs/sandbox.md, "Memory"). */
  get memoryMechanism(): MemoryMechanism {
    return this.#confined?.memoryGroup === undefined ? 'tree-rss' : 'cgroup-v1';
  }

  /** The kernel's count of OOM kills in the memory group; undefined without one (or unreadable). */
  oomKills(): number | undefined {
    return this.#confined?.memoryGroup?.oomKills();
  }

  /**
   * The count a run's memory watch starts from: for the first run of a pooled child, the count read
   * at `ready` (off the run's path, docs/benchmarks.md, "Warm run profile"), which no program of it
   * can have raised yet (a kill while idle then counts against the run: stricter, never looser); for
   * a kept process's later runs, the count now.
   */
  oomKillsBeforeRun(): number | undefined {
    return this.#attachedOnce ? this.oomKills() : (this.#oomKillsAtReady ?? this.oomKills());
  }

  /** The resident size summed over the whole tree, for the tree-wide watchdog (nothing once it exited). */
  treeResidentBytes(): { readonly bytes: number; readonly processes: number } {
    return this.#exit === undefined && this.#confined !== undefined ? this.#confined.treeResidentBytes() : { bytes: 0, processes: 0 };
  }

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  get programPid(): number | undefined {
    return this.#programPid;
  }

  /** Ready and idle: launched, said `ready`, no run attached, not exited, no stray frame seen. */
  get usable(): boolean {
    return this.#readyDone && this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined && this.#listener === undefined;
  }

  /** Still usable or on its way there. */
  get viable(): boolean {
    return this.#exit === undefined && this.#broken === undefined && this.#disposing === undefined;
  }

  async #launch(): Promise<void> {
    const o = this.#options;
    // Under bwrap TMPDIR is the sandbox's own size-capped /tmp and nothing is made on the host;
    // elsewhere a dir in the host's private root (uncapped, outside every writable root), named by
    // its owner so a later host can sweep it if this one dies (docs/security.md, "Host-private state").
    let launched: Launched<ProgramStdio>;
    try {
      launched = await launchChild(
        o,
        () => {
          if (this.#disposing === undefined) this.#tmpDir = makePrivateDir('run');
          return this.#tmpDir;
        },
        (report) => {
          this.#sandbox = report;
          // Ended while the launch was planned: nothing is spawned.
          if (this.#disposing !== undefined) throw new EndedBeforeSpawn();
        },
      );
    } catch (error) {
      if (error instanceof EndedBeforeSpawn) return;
      throw error;
    }
    this.#signalExitCodes = launched.signalExitCodes;
    const confined = launched.process;
    this.#trace?.mark('spawned');
    this.#trace?.pid(confined.pid);
    const proc = confined.child;
    this.#confined = confined;
    this.#proc = proc;
    proc.on('error', (error: Error) => {
      this.#failReady(new RuntimeUnavailableError(`Could not start ${o.texts.start} (${launched.spawned}): ${error.message}`));
      this.#onExit(null, null);
    });
    proc.on('exit', (code: number | null, signal: NodeJS.Signals | null) => this.#onExit(code, signal));
    this.#streams = new ChildStreams(proc.stdio as unknown as ChildStdio, o, {
      line: (line) => this.#onLine(line),
      bad: (reason) => this.#bad(reason),
      end: () => this.#onChannelEnd(),
    });
    if (proc.pid !== undefined) o.onProcess?.({ type: 'spawn', pid: proc.pid });
    this.#setRef(false);
  }

  /** The last bytes the child wrote to stderr. */
  get #stderrTail(): string {
    return this.#streams?.stderrTail ?? '';
  }

  #failReady(error: HarnessError): void {
    if (this.#readyDone) return;
    this.#readyDone = true;
    this.#rejectReady(error);
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
    const listener = this.#listener;
    if (listener === undefined) {
      this.#bad(`an unexpected ${parsed.frame.type} frame from an idle child`);
      return;
    }
    if (this.#trace !== undefined && parsed.frame.type === 'done') this.#trace.mark('done');
    listener.onFrame(parsed.frame, Buffer.byteLength(line, 'utf8'));
  }

  #bad(reason: string): void {
    if (this.#listener !== undefined) {
      this.#listener.onBadFrame(reason);
      return;
    }
    // Nobody runs on this child: it can never be used (a frame between kept runs is a program's doing).
    this.#broken ??= reason;
    this.#failReady(new RuntimeUnavailableError(`${this.#options.texts.process} misbehaved while starting: ${reason}`));
    void this.dispose();
  }

  #onExit(rawCode: number | null, rawSignal: NodeJS.Signals | null): void {
    if (this.#exit !== undefined) return;
    this.#trace?.mark('exit');
    const { code, signal } = this.#signalExitCodes ? decodeSignalExit(rawCode, rawSignal) : { code: rawCode, signal: rawSignal };
    this.#exit = { code, signal, stderr: this.#stderrTail, peakResidentBytes: this.#peakResident };
    // bwrap itself refused to start (it prefixes its errors): a remembered probe success is stale.
    if (!this.#readyDone && this.#sandbox !== undefined) reportStartFailure(this.#sandbox, this.#stderrTail);
    this.#failReady(
      new RuntimeUnavailableError(`${this.#options.texts.exited} exited before it was ready (${describeExit(code, signal)})${tailNote(this.#stderrTail)}`),
    );
    const pid = this.#proc?.pid;
    if (pid !== undefined) this.#options.onProcess?.({ type: 'exit', pid, ...(this.#programPid === undefined ? {} : { programPid: this.#programPid }) });
    if (this.#streams === undefined || this.#streams.ended) {
      this.#notifyExit();
      return;
    }
    // Frames written just before the exit may still sit in the pipe: read them first, but do not wait
    // forever for a descendant that holds the channel open.
    setTimeout(() => this.#notifyExit(), this.#options.exitDrainGraceMs).unref();
  }

  #onChannelEnd(): void {
    if (this.#exit !== undefined) {
      this.#notifyExit();
      return;
    }
    // A program that closed fd 3 can never report again: end its run now rather than at the deadline,
    // once an exit that merely closed the channel first had its chance to arrive.
    setTimeout(() => {
      if (this.#exit === undefined && this.#listener !== undefined) this.#bad('the program closed its control channel');
    }, this.#options.exitDrainGraceMs).unref();
  }

  /** Tells the attached run (once) that the process is gone. */
  #notifyExit(): void {
    if (this.#exit === undefined) return;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.onExit({ ...this.#exit, stderr: this.#stderrTail, peakResidentBytes: this.#peakResident });
  }

  /** The chain from the spawned process down to the program's own process (under bwrap: monitor, init, interpreter). */
  #recordChain(): void {
    if (this.#programPid !== undefined || this.#confined === undefined) return;
    if (!this.#attachedOnce) this.#oomKillsAtReady = this.oomKills();
    const chain = this.#confined.recordChain();
    if (chain.length > 0) this.#programPid = chain[chain.length - 1] as number;
  }

  /** Hands the ready child to a run; frames and the exit now go to `listener` until detach(). */
  attach(listener: ChildListener): void {
    this.#listener = listener;
    this.#attachedOnce = true;
    this.#setRef(true);
    const pid = this.#proc?.pid;
    this.#recordChain();
    if (pid !== undefined && this.#programPid !== undefined) {
      this.#options.onProcess?.({ type: 'run', pid, programPid: this.#programPid });
    }
    if (this.#exit !== undefined) this.#notifyExit();
  }

  /** The run settled and keeps this process (in-memory mode): idle again, not keeping the host alive. */
  detach(): void {
    this.#listener = undefined;
    this.#streams?.cancelWait();
    this.#setRef(false);
  }

  /**
   * Writes one frame (`encoded` is its line when the caller already has it) and returns the bytes now
   * queued on the channel that the child has not read yet, so a run can bound them.
   */
  send(frame: HostFrame, encoded?: string): number {
    const streams = this.#streams;
    if (streams === undefined || streams.destroyed || this.#exit !== undefined) return 0;
    const queued = streams.send(frame, encoded);
    if (this.#trace !== undefined && frame.type === 'run') this.#trace.mark('sent');
    return queued;
  }

  /** The run answered every call in flight: the next frame is likely close (ChildStreams.replied). */
  replied(): void {
    if (this.#exit === undefined) this.#streams?.replied();
  }

  /** The program process's resident memory in bytes (undefined when unknown or gone). */
  residentBytes(): number | undefined {
    const pid = this.#programPid;
    const bytes = pid === undefined ? undefined : residentBytes(pid);
    // Evidence for an interpreter's out-of-memory abort: a fake one never got near the limit.
    if (bytes !== undefined && bytes > this.#peakResident) this.#peakResident = bytes;
    return bytes;
  }

  /**
   * Stops a child that is still booting until resumeBoot() (docs/runtime-lifecycle.md, "The pool"):
   * false when it is ready, ended, or could not be stopped.
   */
  pauseBoot(): boolean {
    if (this.#readyDone || this.#disposing !== undefined || this.#exit !== undefined) return false;
    return this.#confined?.pause() === true;
  }

  resumeBoot(): void {
    this.#confined?.resume();
  }

  /** Remembers the current descendants so a later kill reaches those that left the process group. */
  trackDescendants(): void {
    if (this.#exit === undefined) this.#confined?.trackDescendants();
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
    this.#streams?.cancelWait();
    this.#disposing ??= this.#dispose();
    return this.#disposing;
  }

  async #dispose(): Promise<void> {
    try {
      await this.#launching;
      // Only built when it is needed: an error's stack capture is not free, and a warm run's end passes here.
      if (!this.#readyDone) this.#failReady(new RuntimeUnavailableError(`${this.#options.texts.process} was ended before it was ready.`));
      const confined = this.#confined;
      if (this.#proc !== undefined && confined !== undefined) {
        // Whoever awaits the disposal keeps the host alive until the exit arrives.
        this.#setRef(true);
        this.#trace?.mark('kill');
        // Not inside the optional call: its argument would not be evaluated with tracing off.
        const how = await confined.end();
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
      forgetLive(this);
      this.#trace?.finish();
    }
  }

  #setRef(ref: boolean): void {
    if (this.#proc !== undefined) holdHost(this.#proc, ref);
  }
}

/** Thrown from the launch's beforeSpawn when the child was disposed while its launch was planned. */
class EndedBeforeSpawn extends Error {}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
