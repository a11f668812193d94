// One long-lived `bash` under the sandbox, fed one command at a time (docs/minimal-tools.md). The shell
// reads its script from stdin; for each command the host writes a fixed driver line followed by the
// command text and a fresh random nonce, each NUL-terminated. The driver line reads the command, runs
// it with `eval` in the shell itself (so cd, variables and functions persist) with stdin from
// /dev/null, then reads the nonce and prints `\n<nonce> <status>\n` on stdout and on stderr. The host
// ends a call when both markers arrived. The nonce reaches the shell only through stdin, which the
// command cannot read (a socket, not reopenable through /proc), so no output can forge the marker.

import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';

import { ToolFailedError } from '../errors.js';
import { BASH_PIPE_DRAIN_MS, PROCESS_TREE_SAMPLE_MS } from '../limits.js';
import { planLaunch, spawnConfined, type ConfinedProcess, type SandboxPolicy } from '../sandbox/index.js';
import type { SandboxEnforcement, SandboxMode, SandboxReport } from '../sandbox/types.js';
import { BoundedOutput } from './bounded-output.js';

/**
 * Runs before each command with xtrace off: reads the command, evals it (turning xtrace back on
 * inside the eval when the previous command left it on), saves the flags and turns xtrace off again
 * (so the driver's own steps never show in the output), reads the nonce, writes both markers. `builtin` keeps a function named
 * like a builtin from hijacking the driver. One line, so bash parses it whole before `read` consumes
 * the bytes that follow it on stdin.
 */
const DRIVER_LINE =
  'IFS= builtin read -r -d "" __ptc_cmd; ' +
  'case "${__ptc_flags-}" in *x*) __ptc_cmd="builtin set -x; $__ptc_cmd";; esac; ' +
  'builtin eval "$__ptc_cmd" </dev/null; ' +
  '{ __ptc_status=$?; __ptc_flags=$-; builtin set +x; } 2>/dev/null; ' +
  'IFS= builtin read -r -d "" __ptc_nonce; ' +
  'builtin printf "\\n%s %d\\n" "$__ptc_nonce" "$__ptc_status"; ' +
  'builtin printf "\\n%s %d\\n" "$__ptc_nonce" "$__ptc_status" >&2\n';

/** Longest status text after a marker (`255`), plus slack for a stray space. */
const MAX_STATUS_CHARS = 8;

export interface ShellSessionOptions {
  /** The launch policy (sandboxPolicyOf the harness's WorkspacePolicy). */
  readonly policy: SandboxPolicy;
  readonly mode: SandboxMode;
  /** Bytes kept per stream per call. */
  readonly maxStreamBytes: number;
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
  /** Set when the shell is gone after this call (it exited, or was killed for a timeout or an abort). */
  readonly shellExit?: { readonly code: number | null; readonly signal: NodeJS.Signals | null };
}

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
  readonly #stdout: MarkerScanner;
  readonly #stderr: MarkerScanner;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #startError: Error | undefined;
  readonly #exited: Promise<void>;
  #onExit: (() => void) | undefined;
  #busy = false;

  private constructor(confined: ConfinedProcess, backend: SandboxReport['backend'], enforced: SandboxEnforcement, maxStreamBytes: number) {
    this.#confined = confined;
    this.backend = backend;
    this.enforced = enforced;
    this.#stdout = new MarkerScanner(maxStreamBytes);
    this.#stderr = new MarkerScanner(maxStreamBytes);
    const child = confined.child;
    child.stdout?.on('data', (chunk: Buffer) => this.#stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    // A write to a shell that just died fails with EPIPE; the exit handling reports it.
    child.stdin?.on('error', () => undefined);
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
  static async start(options: ShellSessionOptions): Promise<ShellSession> {
    const plan = await planLaunch({
      kind: 'exec',
      command: 'bash',
      args: ['--noprofile', '--norc'],
      policy: options.policy,
      mode: options.mode,
      firstFreeFd: 3,
    });
    const { backend, enforced } = plan;
    // Descendants are sampled only while a command runs (see run()), not for the shell's whole life.
    const confined = spawnConfined(plan, { stdio: ['pipe', 'pipe', 'pipe'] });
    return new ShellSession(confined, backend, enforced, options.maxStreamBytes);
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
    const nonce = `__ptc_end_${randomBytes(16).toString('hex')}`;
    const stdout = this.#stdout.begin(nonce);
    const stderr = this.#stderr.begin(nonce);
    const sampler =
      this.backend === 'bwrap' ? undefined : setInterval(() => this.#confined.trackDescendants(), PROCESS_TREE_SAMPLE_MS);
    try {
      return await new Promise<ShellRunOutcome>((resolve) => {
        let timedOut = false;
        let aborted = false;
        let settled = false;
        const cleanup = (): void => {
          clearTimeout(deadline);
          limits.signal.removeEventListener('abort', onAbort);
          this.#stdout.onMarker = undefined;
          this.#stderr.onMarker = undefined;
          this.#onExit = undefined;
        };
        const finishOk = (): void => {
          if (settled || !this.#stdout.done || !this.#stderr.done) return;
          settled = true;
          cleanup();
          resolve({ status: this.#stdout.status, stdout, stderr, timedOut, aborted });
        };
        const finishGone = (): void => {
          if (settled) return;
          settled = true;
          cleanup();
          void this.#endAfterExit().then(() => {
            this.#stdout.flush();
            this.#stderr.flush();
            resolve({ status: undefined, stdout, stderr, timedOut, aborted, shellExit: this.#exit ?? { code: null, signal: 'SIGKILL' } });
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
        this.#stdout.onMarker = finishOk;
        this.#stderr.onMarker = finishOk;
        this.#onExit = finishGone;
        if (limits.signal.aborted) {
          onAbort();
          return;
        }
        if (this.#exit !== undefined) {
          finishGone();
          return;
        }
        const stdin = this.#confined.child.stdin as Writable | null;
        stdin?.write(`${DRIVER_LINE}${command}\0${nonce}\0`);
      });
    } finally {
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
    await this.#endAfterExit();
  }

  /** Synchronous kill for the host's exit hook. */
  killNow(): void {
    this.#confined.killTree();
  }

  /** After the shell exited or was killed: nothing it started survives, the pipes are released. */
  async #endAfterExit(): Promise<void> {
    // The session is over either way: what a command left running goes with its shell.
    this.#confined.killTree();
    await this.#exited;
    this.#confined.killTree();
    await this.#confined.waitGone();
    // Without a pid namespace a process that escaped the kill could hold the pipes open: stop reading.
    const child = this.#confined.child;
    await Promise.race([
      Promise.all([streamClosed(child.stdout), streamClosed(child.stderr)]),
      new Promise((resolve) => setTimeout(resolve, BASH_PIPE_DRAIN_MS).unref()),
    ]);
    for (const stream of child.stdio) (stream as Readable | Writable | null)?.destroy();
    live.delete(this);
  }

  #setRef(ref: boolean): void {
    const child = this.#confined.child;
    if (ref) child.ref();
    else child.unref();
    for (const stream of child.stdio) {
      const handle = stream as (Readable & { ref?: () => void; unref?: () => void }) | null;
      if (ref) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

function streamClosed(stream: Readable | null): Promise<void> {
  if (stream === null || stream.destroyed || stream.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.once('end', () => resolve());
  });
}

/**
 * Splits one output stream at the current call's marker. Bytes that may be the start of a marker are
 * held back until the next chunk decides; bytes after a marker (a background job still writing)
 * start the next call's output.
 */
class MarkerScanner {
  onMarker: (() => void) | undefined;
  #output: BoundedOutput;
  #held: Buffer = Buffer.alloc(0);
  #marker: Buffer | undefined;
  #done = false;
  #status: number | undefined;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#output = new BoundedOutput(maxBytes);
  }

  get done(): boolean {
    return this.#done;
  }

  get status(): number | undefined {
    return this.#status;
  }

  /** Starts a call: returns the buffer its output goes to (holding whatever arrived since the last call). */
  begin(nonce: string): BoundedOutput {
    this.#marker = Buffer.from(`\n${nonce} `);
    this.#done = false;
    this.#status = undefined;
    return this.#output;
  }

  /** Ends a call without a marker: held bytes were output after all. */
  flush(): void {
    if (this.#held.length > 0) this.#output.push(this.#held);
    this.#held = Buffer.alloc(0);
    this.#marker = undefined;
  }

  push(chunk: Buffer): void {
    const marker = this.#marker;
    if (marker === undefined || this.#done) {
      this.#output.push(chunk);
      return;
    }
    const data = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    this.#held = Buffer.alloc(0);
    const at = data.indexOf(marker);
    if (at === -1) {
      const keep = Math.min(marker.length - 1, data.length);
      this.#output.push(data.subarray(0, data.length - keep));
      this.#held = Buffer.from(data.subarray(data.length - keep));
      return;
    }
    this.#output.push(data.subarray(0, at));
    const statusStart = at + marker.length;
    const lineEnd = data.indexOf(0x0a, statusStart);
    if (lineEnd === -1) {
      if (data.length - statusStart > MAX_STATUS_CHARS) {
        // Not our marker after all (ours ends within a few digits): it is output.
        this.#output.push(data.subarray(at, at + 1));
        this.push(data.subarray(at + 1));
        return;
      }
      this.#held = Buffer.from(data.subarray(at));
      return;
    }
    const statusText = data.subarray(statusStart, lineEnd).toString('latin1');
    if (!/^\d{1,3}$/.test(statusText)) {
      this.#output.push(data.subarray(at, at + 1));
      this.push(data.subarray(at + 1));
      return;
    }
    this.#status = Number(statusText);
    this.#done = true;
    this.#marker = undefined;
    this.#output = new BoundedOutput(this.#maxBytes);
    const rest = data.subarray(lineEnd + 1);
    if (rest.length > 0) this.#output.push(rest);
    this.onMarker?.();
  }
}
