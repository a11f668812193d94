// One long-lived `bash` under the sandbox, fed one command at a time (docs/minimal-tools.md): the
// host's side of the marker protocol. The shell runs the driver loop of shell-driver.ts and talks to
// the host only through private FIFOs (shell-channels.ts): for each call the host writes the command,
// the names of the call's fresh stdout and stderr pipes, a fresh random nonce and the name of the next
// call's input pipe into the call's input pipe. The driver runs the command with `eval` in the shell
// itself (so cd, variables and functions persist), stdin from /dev/null and output to the call's
// pipes, then reads the nonce and writes `\n<nonce> <status>\n` to both. The host ends a call when
// both markers arrived and then stops listening to that call's pipes (lingering-outputs.ts), so a
// background job's later output reaches no call. The shell is non-dumpable and its pipes' names are
// random in an unlistable directory, so the programs a command runs can neither read a later call's
// input nor forge a marker.

import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

import { ToolFailedError } from '../errors.js';
import { BASH_PIPE_DRAIN_MS, PROCESS_TREE_SAMPLE_MS } from './shell-limits.js';
import {
  excludeWritableRoots,
  launch,
  type ConfinedProcess,
  type SandboxEnforcement,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxReport,
} from '../sandbox/index.js';
import type { BoundedOutput } from './bounded-output.js';
import { LingeringOutputs, type CallOutput } from './lingering-outputs.js';
import { MarkerScanner } from './marker-scanner.js';
import { openInputFifo, openOutputFifo, ShellChannels, type OutputFifo } from './shell-channels.js';
import { callFrame, callNonce, DRIVER_SCRIPT } from './shell-driver.js';
import { ShellMemoryWatch } from './shell-memory.js';

export interface ShellSessionOptions {
  /** The launch policy (sandboxPolicyOf the harness's WorkspacePolicy). */
  readonly policy: SandboxPolicy;
  readonly mode: SandboxMode;
  /** Bytes kept per stream per call. */
  readonly maxStreamBytes: number;
  /** Memory the shell's whole process tree may hold, in bytes (shell-memory.ts). */
  readonly memoryLimitBytes: number;
}

/**
 * Test-only: launch a readable copy of bash, which the kernel leaves dumpable, so a hostile test can
 * show what the execute-only copy prevents. Not reachable from the tool's options or the workspace.
 */
export interface ShellSessionTestOptions {
  readonly readableShell?: boolean;
}

export interface ShellRunLimits {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface ShellRunOutcome {
  /** The command's `$?`; undefined when the shell did not get to report it. */
  readonly status: number | undefined;
  readonly stdout: BoundedOutput;
  readonly stderr: BoundedOutput;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** True when the tree went over the memory limit during the call (a process of it was killed). */
  readonly memoryLimited: boolean;
  /** Set when the shell is gone after this call (it exited, or was killed for a timeout or an abort). */
  readonly shellExit?: { readonly code: number | null; readonly signal: NodeJS.Signals | null };
}

/** Where bash is looked for when the policy's environment has no PATH. */
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Sessions whose processes may still exist: killed synchronously if the host exits. */
const live = new Set<ShellSession>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const session of live) session.killNow();
  });
}

export class ShellSession {
  readonly backend: SandboxReport['backend'];
  readonly enforced: SandboxEnforcement;
  readonly #confined: ConfinedProcess;
  readonly #channels: ShellChannels;
  readonly #maxStreamBytes: number;
  readonly #memoryLimitBytes: number;
  /** The next call's input pipe: its name (sent with the previous call) and the host's end. */
  #inputPath: string;
  #input: Socket;
  /** Output pipes of earlier calls that background jobs still hold: read and dropped, oldest first. */
  readonly #lingering = new LingeringOutputs();
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #startError: Error | undefined;
  readonly #exited: Promise<void>;
  #onExit: (() => void) | undefined;
  #busy = false;
  #ended = false;

  private constructor(
    confined: ConfinedProcess,
    channels: ShellChannels,
    input: { path: string; socket: Socket },
    backend: SandboxReport['backend'],
    enforced: SandboxEnforcement,
    maxStreamBytes: number,
    memoryLimitBytes: number,
  ) {
    this.#confined = confined;
    this.#channels = channels;
    this.#inputPath = input.path;
    this.#input = input.socket;
    this.backend = backend;
    this.enforced = enforced;
    this.#maxStreamBytes = maxStreamBytes;
    this.#memoryLimitBytes = memoryLimitBytes;
    const child = confined.child;
    // The shell's own stdout and stderr carry no call's output (a driver error at most); drain them
    // so nothing writing there blocks. bwrap's init holds them too, so a program could reach them.
    child.stdout?.resume();
    child.stderr?.resume();
    // The first input pipe's name; then end-of-file, so the stdin that bwrap's init also holds
    // carries nothing more.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(`${input.path}\0`);
    this.#input.on('error', () => undefined);
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        this.#onExit?.();
        resolve();
      });
      child.once('error', (error) => {
        this.#startError = error;
        if (child.pid === undefined) {
          this.#exit = { code: null, signal: null };
          this.#onExit?.();
          resolve();
        }
      });
    });
    live.add(this);
    installExitHook();
    this.#setRef(false);
  }

  /** Plans and spawns the shell; it waits, idle, for the first command. */
  static async start(options: ShellSessionOptions, testOptions: ShellSessionTestOptions = {}): Promise<ShellSession> {
    // The shell's dir lives in the private root, which must be chosen outside this launch's writable roots.
    if (options.mode !== 'off') excludeWritableRoots([options.policy.cwd, ...options.policy.write]);
    const channels = ShellChannels.create(options.policy.env['PATH'] ?? DEFAULT_PATH, testOptions.readableShell === true);
    let input: Socket | undefined;
    try {
      const inputPath = channels.freshPath();
      await channels.makeFifos([inputPath]);
      input = openInputFifo(inputPath);
      const launched = await launch({
        command: { kind: 'exec', command: channels.bashPath, args: ['--noprofile', '--norc', '-c', DRIVER_SCRIPT], runtimeReadPaths: [channels.dir] },
        policy: options.policy,
        mode: options.mode,
        // Descendants are sampled only while a command runs (see run()), not for the shell's whole life.
        stdio: ['pipe', 'pipe', 'pipe'],
        limits: { memoryLimitBytes: options.memoryLimitBytes },
        // A nested user namespace would give a program capabilities over its own files, enough to
        // list the unlistable directory and learn the pipes' names.
        denyUserNamespaces: true,
      });
      const { backend, enforced } = launched.report;
      const confined = launched.process;
      // bwrap may have forked before the spawn moved it into its memory group; the shell has run no
      // command yet, so the chain is all there is (docs/minimal-tools.md, "Memory").
      confined.recordChain();
      return new ShellSession(confined, channels, { path: inputPath, socket: input }, backend, enforced, options.maxStreamBytes, options.memoryLimitBytes);
    } catch (error) {
      input?.destroy();
      channels.remove();
      throw error;
    }
  }

  /** False once the shell process has exited or failed to start. */
  get alive(): boolean {
    return this.#exit === undefined;
  }

  /**
   * Runs one command. Resolves when both markers arrived, or when the shell is gone (it exited, or
   * was killed at the deadline or on abort, with everything it started). Never runs two at once.
   */
  async run(command: string, limits: ShellRunLimits): Promise<ShellRunOutcome> {
    if (this.#busy) throw new ToolFailedError('The shell is already running a command; wait for it to finish.');
    if (this.#startError !== undefined && this.#exit !== undefined) {
      throw new ToolFailedError(`bash could not be started: ${this.#startError.message}`, { cause: this.#startError });
    }
    this.#busy = true;
    this.#setRef(true);
    let output: CallOutput | undefined;
    const sampler =
      this.backend === 'bwrap' ? undefined : setInterval(() => this.#confined.trackDescendants(), PROCESS_TREE_SAMPLE_MS);
    const memory = new ShellMemoryWatch(this.#confined, this.#memoryLimitBytes);
    try {
      const nonce = callNonce();
      const stdout = new MarkerScanner(nonce, this.#maxStreamBytes);
      const stderr = new MarkerScanner(nonce, this.#maxStreamBytes);
      const outPath = this.#channels.freshPath();
      const errPath = this.#channels.freshPath();
      const nextPath = this.#channels.freshPath();
      await this.#channels.makeFifos([outPath, errPath, nextPath]);
      output = { paths: [outPath, errPath], fifos: [openOutputFifo(outPath), openOutputFifo(errPath)] };
      const [outFifo, errFifo] = output.fifos as [OutputFifo, OutputFifo];
      outFifo.stream.on('data', (chunk: Buffer) => stdout.push(chunk));
      errFifo.stream.on('data', (chunk: Buffer) => stderr.push(chunk));
      const next = openInputFifo(nextPath);
      next.on('error', () => undefined);
      const input = this.#input;
      const inputPath = this.#inputPath;
      this.#input = next;
      this.#inputPath = nextPath;
      const outcome = await new Promise<Omit<ShellRunOutcome, 'memoryLimited'>>((resolve) => {
        let timedOut = false;
        let aborted = false;
        let settled = false;
        const cleanup = (): void => {
          clearTimeout(deadline);
          limits.signal.removeEventListener('abort', onAbort);
          stdout.onMarker = undefined;
          stderr.onMarker = undefined;
          this.#onExit = undefined;
        };
        const finishOk = (): void => {
          if (settled || !stdout.done || !stderr.done) return;
          settled = true;
          cleanup();
          resolve({ status: stdout.status, stdout: stdout.output, stderr: stderr.output, timedOut, aborted });
        };
        const finishGone = (): void => {
          if (settled) return;
          settled = true;
          cleanup();
          void this.#endAfterExit(output).then(() => {
            stdout.flush();
            stderr.flush();
            resolve({
              status: undefined,
              stdout: stdout.output,
              stderr: stderr.output,
              timedOut,
              aborted,
              shellExit: this.#exit ?? { code: null, signal: 'SIGKILL' },
            });
          });
        };
        const kill = (): void => {
          this.#confined.killTree();
          finishGone();
        };
        const onAbort = (): void => {
          aborted = true;
          kill();
        };
        const deadline = setTimeout(() => {
          timedOut = true;
          kill();
        }, limits.timeoutMs);
        limits.signal.addEventListener('abort', onAbort, { once: true });
        stdout.onMarker = finishOk;
        stderr.onMarker = finishOk;
        this.#onExit = finishGone;
        if (limits.signal.aborted) {
          onAbort();
          return;
        }
        if (this.#exit !== undefined) {
          finishGone();
          return;
        }
        input.write(callFrame({ command, outPath, errPath, nonce, nextPath }));
      });
      // The call's input pipe is spent; its name goes so nothing can open it later.
      input.destroy();
      this.#channels.unlink(inputPath);
      return { ...outcome, memoryLimited: memory.stop() };
    } finally {
      memory.stop();
      if (output !== undefined) this.#retire(output);
      if (sampler !== undefined) {
        clearInterval(sampler);
        this.#confined.trackDescendants();
      }
      this.#busy = false;
      if (this.alive) this.#setRef(false);
    }
  }

  /** Kills the shell and everything it started; resolves once they are gone. Idempotent. */
  async dispose(): Promise<void> {
    this.#setRef(true);
    this.#confined.killTree();
    await this.#endAfterExit(undefined);
  }

  /** Synchronous kill for the host's exit hook. */
  killNow(): void {
    this.#confined.killTree();
    this.#channels.remove();
  }

  /** After a call: its pipes lose their names and linger until the background jobs holding them close them. */
  #retire(output: CallOutput): void {
    this.#lingering.retire(output, (path) => this.#channels.unlink(path), this.#ended);
  }

  /** After the shell exited or was killed: nothing it started survives, the pipes are released. */
  async #endAfterExit(output: CallOutput | undefined): Promise<void> {
    // The session is over either way: what a command left running goes with its shell.
    this.#confined.killTree();
    await this.#exited;
    this.#confined.killTree();
    await this.#confined.waitGone();
    const child = this.#confined.child;
    // The current call's pipes end once their writers are gone; the host's own hold goes first.
    for (const fifo of output?.fifos ?? []) fifo.release();
    const streams: Readable[] = [...(output?.fifos.map((fifo) => fifo.stream) ?? [])];
    if (child.stdout !== null) streams.push(child.stdout);
    if (child.stderr !== null) streams.push(child.stderr);
    // Without a pid namespace a process that escaped the kill could hold the pipes open: stop reading.
    await Promise.race([
      Promise.all(streams.map(streamClosed)),
      new Promise((resolve) => setTimeout(resolve, BASH_PIPE_DRAIN_MS).unref()),
    ]);
    if (this.#ended) return;
    this.#ended = true;
    for (const stream of child.stdio) (stream as Readable | null)?.destroy();
    this.#input.destroy();
    this.#lingering.destroyAll();
    this.#channels.remove();
    live.delete(this);
  }

  #setRef(ref: boolean): void {
    const child = this.#confined.child;
    if (ref) child.ref();
    else child.unref();
    const handles = [...child.stdio, this.#input];
    for (const stream of handles) {
      const handle = stream as (Readable & { ref?: () => void; unref?: () => void }) | null;
      if (ref) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

function streamClosed(stream: Readable): Promise<void> {
  if (stream.destroyed || stream.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.once('end', () => resolve());
  });
}
