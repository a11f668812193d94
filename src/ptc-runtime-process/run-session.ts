// One program on one ready child, for any interpreter: sends the run frame, validates every frame
// that comes back as hostile input (docs/control-channel.md), dispatches binding calls, keeps the
// output ledger, enforces deadline, abort and memory, and settles exactly once. A stateless run
// always kills the tree; an in-memory run keeps the process when the program itself finished (a
// value or an exception) and kills it for anything the host had to stop (docs/in-memory-mode.md).

import { capErrorMessage } from '../error-text.js';
import type { ErrorInfo } from '../errors.js';
import { checkJson, type JsonValue } from '../json.js';
import { MAX_QUEUED_REPLY_BYTES } from '../limits.js';
import { Deadline } from '../ptc-runtime/deadline.js';
import type { ResolvedRunSpec, RunResult, SandboxReport } from '../ptc-runtime/types.js';
import type { CallFrame, ChildFrame, ChildLimits } from './frames.js';
import type { ChildExit } from './child-exit.js';
import type { ProcessChild } from './process-child.js';
import { MemoryWatch } from './memory-watch.js';
import { ReplyQueue } from './reply-queue.js';
import { runFrame } from './run-frame.js';
import { describeError, lookupBinding, memoryLimitError, outputLimitError, preview, timeoutError, type SessionTexts } from './session-texts.js';

/** The child's limits minus those that follow from fixed host limits (frame depth, error text). */
export interface SessionLimits extends Omit<ChildLimits, 'maxValueDepth' | 'maxErrorMessageBytes'> {
  readonly rssLimitBytes: number;
  readonly rssIntervalMs: number;
  readonly memoryMb: number;
}

export interface SessionInput {
  readonly child: ProcessChild;
  readonly sandbox: SandboxReport;
  readonly spec: ResolvedRunSpec;
  /** The program as the child runs it (Node: the stripped wrapper; Python: the text itself). */
  readonly code: string;
  readonly limits: SessionLimits;
  /** Epoch ms when the deadline expires (measured from the start of run()). */
  readonly deadlineAt: number;
  /** Aborted when the runtime closes: the run ends as ABORTED. */
  readonly closeSignal: AbortSignal;
  /** Track descendants on every watchdog tick (no pid namespace kills them for us). */
  readonly trackDescendants: boolean;
  readonly texts: SessionTexts;
  /** In-memory mode: run in the child's kept namespace, and keep the process if the program finishes. */
  readonly keep: boolean;
  /** The id the child's next call will carry (ids grow across the runs of a kept process). */
  readonly firstCallId: number;
  /** Lines put before the program's own logs (the in-memory reset note); they count in the ledger. */
  readonly notes: readonly string[];
  /**
   * In-memory mode: the kept process's channel key. Every `call` and `done` frame must carry it; one
   * without it was written by code other than the bootstrap (docs/in-memory-mode.md).
   */
  readonly channelKey?: string | undefined;
  /** The first run of a kept process: the run frame hands the child its key. */
  readonly sendChannelKey?: boolean;
}

export interface SessionOutcome {
  readonly result: RunResult;
  /** The process is still alive and idle, its namespace intact (only when `keep` was asked). */
  readonly kept: boolean;
  readonly nextCallId: number;
  /** Why the process was lost, when the host had to kill it. */
  readonly lostBecause?: string;
}

export function runSession(input: SessionInput): Promise<SessionOutcome> {
  return new Promise<SessionOutcome>((resolve) => new Session(input, resolve).start());
}

const ABORTED: ErrorInfo = { code: 'ABORTED', message: 'the run was aborted' };
const MEMORY_LOST = 'the previous program hit the memory limit';
const CLOSED: ErrorInfo = { code: 'ABORTED', message: 'the runtime was closed' };

class Session {
  readonly #input: SessionInput;
  readonly #resolve: (outcome: SessionOutcome) => void;
  readonly #logs: string[] = [];
  readonly #calls = new AbortController();
  readonly #pending = new Map<number, number>();
  #outputBytes = 0;
  #pendingArgsBytes = 0;
  #lastCallId: number;
  #settled = false;
  /** The replies to binding calls, batched per turn of the event loop. */
  readonly #replies: ReplyQueue;
  #deadline: Deadline | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #onAbort: (() => void) | undefined;
  #onClose: (() => void) | undefined;
  /** The limit over the whole tree (docs/sandbox.md, "Memory"), from the start of the run. */
  #memory: MemoryWatch | undefined;

  constructor(input: SessionInput, resolve: (outcome: SessionOutcome) => void) {
    this.#input = input;
    this.#resolve = resolve;
    this.#lastCallId = input.firstCallId - 1;
    this.#replies = new ReplyQueue(input.child, input.limits.maxFrameBytes, {
      // A child that stops reading (its event loop blocked, or forged calls it never reads the replies
      // of) would make the host buffer every reply: the queue is bounded per run.
      stalled: (queued) =>
        this.#protocol(
          `the program stopped reading its replies (${queued} bytes queued, more than ${MAX_QUEUED_REPLY_BYTES}); ` +
            `do not block the event loop while ${this.#input.texts.calls} are in flight`,
        ),
      failed: (error) => this.#replyFailed(error),
      // Every call answered: the program's next frame is likely microseconds away (spin-wait.ts).
      flushed: () => {
        if (this.#pending.size === 0 && !this.#settled) this.#input.child.replied();
      },
    });
  }

  start(): void {
    const { child, spec, limits } = this.#input;
    for (const note of this.#input.notes) this.#onLog(note);
    const signal = spec.signal;
    if (signal?.aborted) {
      this.#settle({ error: ABORTED }, 'the run was aborted');
      return;
    }
    if (signal !== undefined) {
      this.#onAbort = () => this.#settle({ error: ABORTED }, 'the run was aborted');
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    if (this.#input.closeSignal.aborted) {
      this.#settle({ error: CLOSED }, 'the runtime was closed');
      return;
    }
    this.#onClose = () => this.#settle({ error: CLOSED }, 'the runtime was closed');
    this.#input.closeSignal.addEventListener('abort', this.#onClose, { once: true });
    this.#memory = new MemoryWatch(child, limits.rssLimitBytes, this.#input.texts.memoryHint);
    this.#deadline = new Deadline(this.#input.deadlineAt, () => this.#settle({ error: timeoutError(spec.timeoutMs, this.#input.texts.calls) }, 'the previous program timed out'));
    this.#watchdog = setInterval(() => this.#watch(), limits.rssIntervalMs);

    child.attach({
      onFrame: (frame, bytes) => this.#onFrame(frame, bytes),
      onBadFrame: (reason) => this.#protocol(reason),
      onExit: (exit) => this.#onChildExit(exit),
    });
    if (this.#settled) return;
    child.send(runFrame(this.#input, limits.maxOutputBytes - this.#outputBytes));
  }

  #watch(): void {
    if (this.#settled) return;
    const { child, limits } = this.#input;
    const rss = child.residentBytes();
    if (rss !== undefined && rss > limits.rssLimitBytes) {
      this.#settle(
        { error: memoryLimitError(limits.rssLimitBytes, rss, this.#input.texts.memoryHint) },
        MEMORY_LOST,
      );
      return;
    }
    if (this.#input.trackDescendants) child.trackDescendants();
    const tree = this.#memory?.overLimit();
    if (tree !== undefined) this.#settle({ error: tree }, MEMORY_LOST);
  }

  #onFrame(frame: ChildFrame, bytes: number): void {
    if (this.#settled) return;
    try {
      this.#handleFrame(frame, bytes);
    } catch (error) {
      this.#protocol(`the host could not handle a ${frame.type} frame: ${describeError(error)}`);
    }
  }

  #handleFrame(frame: ChildFrame, bytes: number): void {
    if ((frame.type === 'call' || frame.type === 'done') && this.#input.channelKey !== undefined && frame.key !== this.#input.channelKey) {
      // Not the bootstrap's: code an earlier program left running, or a thread, wrote to fd 3. It
      // must not count as a call or the outcome of the program now running.
      this.#protocol(
        `a ${frame.type} frame without the kept process's channel key: code other than the runtime's bindings wrote to the control channel ` +
          '(code an earlier program left running, or a thread it started)',
      );
      return;
    }
    switch (frame.type) {
      case 'ready':
        this.#protocol('a second ready frame');
        return;
      case 'log':
        this.#onLog(frame.text);
        return;
      case 'call':
        this.#onCall(frame, bytes);
        return;
      case 'done':
        if (!frame.ok) {
          this.#settle({ error: { code: frame.error.code, message: frame.error.message } }, undefined, true);
          return;
        }
        this.#onValue(frame.value);
        return;
    }
  }

  #onLog(text: string): void {
    // Each line also costs its newline, so a flood of empty lines is bounded too.
    const bytes = Buffer.byteLength(text, 'utf8') + 1;
    if (this.#outputBytes + bytes > this.#input.limits.maxOutputBytes) {
      this.#settle({ error: outputLimitError(this.#input.limits.maxOutputBytes) }, 'the previous program exceeded the output limit');
      return;
    }
    this.#outputBytes += bytes;
    this.#logs.push(text);
    const onLog = this.#input.spec.onLog;
    if (onLog !== undefined) {
      try {
        onLog(text);
      } catch {
        // A front-end's display failure must not fail the program (RunRequest.onLog).
      }
    }
  }

  #onValue(value: JsonValue | undefined): void {
    if (value === undefined) {
      this.#settle({}, undefined, true);
      return;
    }
    // The frame's depth was bounded before parsing, so this cannot recurse without limit; a value that
    // still fails to serialise is the program's fault, reported as such.
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      this.#protocol(`the returned value could not be serialised: ${describeError(error)}`);
      return;
    }
    const bytes = Buffer.byteLength(json, 'utf8');
    if (this.#outputBytes + bytes > this.#input.limits.maxOutputBytes) {
      this.#settle({ error: outputLimitError(this.#input.limits.maxOutputBytes) }, 'the previous program exceeded the output limit');
      return;
    }
    this.#settle({ value }, undefined, true);
  }

  #onCall(frame: CallFrame, bytes: number): void {
    const { limits, spec } = this.#input;
    if (frame.id !== this.#lastCallId + 1) {
      this.#protocol(frame.id <= this.#lastCallId ? `duplicate call id ${frame.id}` : `unknown call id ${frame.id} (expected ${this.#lastCallId + 1})`);
      return;
    }
    this.#lastCallId = frame.id;
    const fn = lookupBinding(spec, frame.global, frame.member);
    if (fn === undefined) {
      this.#protocol(`a call to an unknown binding ${preview(frame.global)}[${preview(JSON.stringify(frame.member))}]`);
      return;
    }
    if (this.#pending.size + 1 > limits.maxPendingCalls) {
      this.#protocol(`more than ${limits.maxPendingCalls} binding calls in flight`);
      return;
    }
    if (this.#pendingArgsBytes + bytes > limits.maxPendingArgsBytes && this.#pending.size > 0) {
      this.#protocol(`more than ${limits.maxPendingArgsBytes} bytes of binding arguments in flight`);
      return;
    }
    this.#pending.set(frame.id, bytes);
    this.#pendingArgsBytes += bytes;
    const signal = this.#calls.signal;
    let outcome: Promise<JsonValue | undefined>;
    try {
      outcome = Promise.resolve(fn(frame.args, { signal }));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // Both outcomes are handled totally: nothing a binding resolves or rejects with can become an
    // unhandled rejection in the host (docs/control-channel.md), and whatever a reply path throws
    // ends the run instead of escaping into the event loop.
    outcome.then(
      (value) => {
        try {
          this.#reply(frame, value);
        } catch (error) {
          this.#replyFailed(error);
        }
      },
      (error: unknown) => {
        try {
          this.#replyError(frame, error);
        } catch (thrown) {
          this.#replyFailed(thrown);
        }
      },
    );
  }

  #replyFailed(error: unknown): void {
    this.#settle(
      { error: { code: 'PROTOCOL', message: `the host could not reply to a binding call: ${describeError(error)}` } },
      'a protocol failure',
    );
  }

  #reply(frame: CallFrame, value: unknown): void {
    if (!this.#finishCall(frame.id)) return;
    if (value === undefined) {
      this.#replies.result({ type: 'result', id: frame.id, ok: true });
      return;
    }
    let check: ReturnType<typeof checkJson>;
    try {
      check = checkJson(value);
    } catch (error) {
      check = { ok: false, path: '', reason: `inspecting it threw: ${describeError(error)}` };
    }
    if (!check.ok) {
      const label = `${preview(frame.global)}.${preview(frame.member)}`;
      this.#replies.error(frame.id, `${label} returned a value that is not JSON (at ${check.path || 'the value itself'}: ${check.reason})`);
      return;
    }
    this.#replies.result({ type: 'result', id: frame.id, ok: true, value: value as JsonValue });
  }

  #replyError(frame: CallFrame, error: unknown): void {
    if (!this.#finishCall(frame.id)) return;
    let code: unknown;
    try {
      code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    } catch {
      code = undefined;
    }
    this.#replies.error(frame.id, capErrorMessage(describeError(error)), typeof code === 'string' ? code : undefined);
  }

  #finishCall(id: number): boolean {
    if (this.#settled) return false;
    const bytes = this.#pending.get(id);
    if (bytes === undefined) return false;
    this.#pending.delete(id);
    this.#pendingArgsBytes -= bytes;
    return true;
  }

  #onChildExit(exit: ChildExit): void {
    if (this.#settled) return;
    this.#settle({ error: this.#input.texts.exitError(exit, this.#input.limits.memoryMb) }, 'the previous program ended its process');
  }

  #protocol(reason: string): void {
    this.#settle(
      { error: { code: 'PROTOCOL', message: `the program broke the control channel protocol: ${reason}` } },
      'the previous program broke the control channel',
    );
  }

  /**
   * `byProgram`: the child reported `done` itself, so its process is in a known state and an in-memory
   * run may keep it; every other settlement kills it (`lost` says why, for the next run's note).
   */
  #settle(outcome: { value?: JsonValue; error?: ErrorInfo }, lost: string | undefined, byProgram = false): void {
    if (this.#settled) return;
    // An OOM kill in the tree decides the run, whatever the program made of it afterwards (a value
    // after its child was killed, an exit, a timeout): only the caller's abort stands above it.
    const code = outcome.error?.code;
    if (this.#memory?.kernelCounted === true && code !== 'MEMORY_LIMIT' && code !== 'ABORTED') {
      const tree = this.#memory.overLimit();
      if (tree !== undefined) {
        outcome = { error: tree };
        lost = MEMORY_LOST;
        byProgram = false;
      }
    }
    this.#settled = true;
    this.#replies.close();
    this.#deadline?.clear();
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    if (this.#onAbort !== undefined) this.#input.spec.signal?.removeEventListener('abort', this.#onAbort);
    if (this.#onClose !== undefined) this.#input.closeSignal.removeEventListener('abort', this.#onClose);
    // Only bindings hold its signal: a run that made no call has nobody to tell (the abort's error costs ~50 µs).
    if (this.#lastCallId >= this.#input.firstCallId) this.#calls.abort();
    // Every failure passes here: one cap for whatever text the program or the runtime produced.
    const error = outcome.error === undefined ? undefined : { code: outcome.error.code, message: capErrorMessage(outcome.error.message) };
    const result: RunResult = {
      ...(outcome.value === undefined || outcome.error !== undefined ? {} : { value: outcome.value }),
      logs: this.#logs,
      ...(error === undefined ? {} : { error }),
      sandbox: this.#input.sandbox,
    };
    const { child } = this.#input;
    const nextCallId = this.#lastCallId + 1;
    if (this.#input.keep && byProgram && child.viable) {
      child.detach();
      this.#resolve({ result, kept: true, nextCallId });
      return;
    }
    // Without a pid namespace, catch descendants started since the last watchdog tick before the kill.
    if (this.#input.trackDescendants) child.trackDescendants();
    void child.dispose().then(() => this.#resolve({ result, kept: false, nextCallId, ...(lost === undefined ? {} : { lostBecause: lost }) }));
  }
}
