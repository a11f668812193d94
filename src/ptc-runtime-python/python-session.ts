// One program on one ready python3 child: sends the run frame, validates every frame that comes back
// as hostile input (the Node runtime's frame parser, src/ptc-runtime-node/frames.ts), dispatches
// binding calls, keeps the output ledger, enforces deadline, abort and memory, and settles exactly
// once. A stateless run always kills the tree; an in-memory run keeps the process when the program
// itself finished (value or exception) and kills it for anything the host had to stop.

import { capErrorMessage } from '../error-text.js';
import type { ErrorInfo } from '../errors.js';
import { checkJson, type JsonValue } from '../json.js';
import { MAX_ERROR_MESSAGE_BYTES, MAX_FRAME_DEPTH, MAX_QUEUED_REPLY_BYTES } from '../limits.js';
import type { BindingFunction, ResolvedRunSpec, RunResult, SandboxReport } from '../ptc-runtime/types.js';
import { encodeFrame, type CallFrame, type ChildBinding, type ChildFrame, type ChildLimits, type ResultFrame } from '../ptc-runtime-node/frames.js';
import { describeExit, type PythonChild, type PythonExit } from './python-child.js';

export interface PythonSessionLimits extends Omit<ChildLimits, 'maxValueDepth' | 'maxErrorMessageBytes'> {
  readonly rssLimitBytes: number;
  readonly rssIntervalMs: number;
}

export interface PythonSessionInput {
  readonly child: PythonChild;
  readonly sandbox: SandboxReport;
  readonly spec: ResolvedRunSpec;
  readonly limits: PythonSessionLimits;
  readonly deadlineAt: number;
  readonly closeSignal: AbortSignal;
  readonly trackDescendants: boolean;
  /** In-memory mode: run in the child's kept namespace, and keep the process if the program finishes. */
  readonly keep: boolean;
  /** The id the child's next call will carry (ids grow across the runs of a kept process). */
  readonly firstCallId: number;
  /** Lines put before the program's own logs (the in-memory reset note); they count in the ledger. */
  readonly notes?: readonly string[];
}

export interface PythonSessionOutcome {
  readonly result: RunResult;
  /** The process is still alive and idle, its namespace intact (only when `keep` was asked). */
  readonly kept: boolean;
  readonly nextCallId: number;
  /** Why the process was lost, when a kept one had to be killed. */
  readonly lostBecause?: string;
}

/** The run frame's limits: the host's, plus those that follow from fixed host bounds. */
type RunFrameLine = { type: 'run'; code: string; bindings: ChildBinding[]; limits: ChildLimits; keep: boolean };

export function runPythonSession(input: PythonSessionInput): Promise<PythonSessionOutcome> {
  return new Promise((resolve) => new Session(input, resolve).start());
}

class Session {
  readonly #input: PythonSessionInput;
  readonly #resolve: (outcome: PythonSessionOutcome) => void;
  readonly #logs: string[] = [];
  readonly #calls = new AbortController();
  readonly #pending = new Map<number, number>();
  #outputBytes = 0;
  #pendingArgsBytes = 0;
  #lastCallId: number;
  #settled = false;
  #deadline: NodeJS.Timeout | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #onAbort: (() => void) | undefined;
  #onClose: (() => void) | undefined;

  constructor(input: PythonSessionInput, resolve: (outcome: PythonSessionOutcome) => void) {
    this.#input = input;
    this.#resolve = resolve;
    this.#lastCallId = input.firstCallId - 1;
  }

  start(): void {
    const { child, spec, limits } = this.#input;
    for (const note of this.#input.notes ?? []) this.#onLog(note);
    if (spec.signal?.aborted) return this.#settle({ error: { code: 'ABORTED', message: 'the run was aborted' } }, 'the run was aborted');
    if (spec.signal !== undefined) {
      this.#onAbort = () => this.#settle({ error: { code: 'ABORTED', message: 'the run was aborted' } }, 'the run was aborted');
      spec.signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    if (this.#input.closeSignal.aborted) return this.#settle({ error: { code: 'ABORTED', message: 'the runtime was closed' } }, 'closed');
    this.#onClose = () => this.#settle({ error: { code: 'ABORTED', message: 'the runtime was closed' } }, 'the runtime was closed');
    this.#input.closeSignal.addEventListener('abort', this.#onClose, { once: true });
    const remaining = Math.max(0, this.#input.deadlineAt - Date.now());
    this.#deadline = setTimeout(
      () =>
        this.#settle(
          {
            error: {
              code: 'TIMEOUT',
              message: `the program did not finish within ${spec.timeoutMs} ms (the deadline includes awaited tool calls); do less per program or allow more time`,
            },
          },
          'the previous program timed out',
        ),
      remaining,
    );
    this.#watchdog = setInterval(() => this.#watch(), limits.rssIntervalMs);
    child.attach({
      onFrame: (frame, bytes) => this.#onFrame(frame, bytes),
      onBadFrame: (reason) => this.#protocol(reason),
      onExit: (exit) => this.#onChildExit(exit),
    });
    if (this.#settled) return;
    const frame: RunFrameLine = {
      type: 'run',
      code: spec.program,
      bindings: spec.bindings.map((binding) => ({
        global: binding.global,
        members: Object.keys(binding.functions),
        errorClass: binding.errorClass === undefined ? null : { ...binding.errorClass },
      })),
      limits: {
        maxOutputBytes: limits.maxOutputBytes - this.#outputBytes,
        maxFrameBytes: limits.maxFrameBytes,
        maxPendingCalls: limits.maxPendingCalls,
        maxPendingArgsBytes: limits.maxPendingArgsBytes,
        maxValueDepth: MAX_FRAME_DEPTH - 1,
        maxErrorMessageBytes: MAX_ERROR_MESSAGE_BYTES,
      },
      keep: this.#input.keep,
    };
    child.send(`${JSON.stringify(frame)}\n`);
  }

  #watch(): void {
    if (this.#settled) return;
    const { child, limits } = this.#input;
    const rss = child.residentBytes();
    if (rss !== undefined && rss > limits.rssLimitBytes) {
      this.#settle(
        {
          error: {
            code: 'MEMORY_LIMIT',
            message:
              `the program's process used more than its ${mib(limits.rssLimitBytes)} MiB memory limit (${mib(rss)} MiB resident); ` +
              'process the data in smaller pieces (iterate, or keep only what you need)',
          },
        },
        'the previous program hit the memory limit',
      );
      return;
    }
    if (this.#input.trackDescendants) child.trackDescendants();
  }

  #onFrame(frame: ChildFrame, bytes: number): void {
    if (this.#settled) return;
    try {
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
          if (!frame.ok) this.#settle({ error: { code: frame.error.code, message: frame.error.message } }, undefined, true);
          else this.#onValue(frame.value);
          return;
      }
    } catch (error) {
      this.#protocol(`the host could not handle a ${frame.type} frame: ${describeError(error)}`);
    }
  }

  #onLog(text: string): void {
    const bytes = Buffer.byteLength(text, 'utf8') + 1;
    if (this.#outputBytes + bytes > this.#input.limits.maxOutputBytes) {
      this.#settle({ error: outputLimitError(this.#input.limits.maxOutputBytes) }, 'the previous program exceeded the output limit');
      return;
    }
    this.#outputBytes += bytes;
    this.#logs.push(text);
    try {
      this.#input.spec.onLog?.(text);
    } catch {
      // A front-end's display failure must not fail the program (RunRequest.onLog).
    }
  }

  #onValue(value: JsonValue | undefined): void {
    if (value === undefined) return this.#settle({}, undefined, true);
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
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
    let outcome: Promise<JsonValue | undefined>;
    try {
      outcome = Promise.resolve(fn(frame.args, { signal: this.#calls.signal }));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      (value) => this.#guard(() => this.#reply(frame, value)),
      (error: unknown) => this.#guard(() => this.#replyError(frame, error)),
    );
  }

  #guard(body: () => void): void {
    try {
      body();
    } catch (error) {
      this.#settle({ error: { code: 'PROTOCOL', message: `the host could not reply to a binding call: ${describeError(error)}` } }, 'a protocol failure');
    }
  }

  #reply(frame: CallFrame, value: unknown): void {
    if (!this.#finishCall(frame.id)) return;
    if (value === undefined) return this.#sendResult({ type: 'result', id: frame.id, ok: true });
    let check: ReturnType<typeof checkJson>;
    try {
      check = checkJson(value);
    } catch (error) {
      check = { ok: false, path: '', reason: `inspecting it threw: ${describeError(error)}` };
    }
    if (!check.ok) {
      this.#sendError(frame.id, `${preview(frame.global)}.${preview(frame.member)} returned a value that is not JSON (at ${check.path || 'the value itself'}: ${check.reason})`);
      return;
    }
    this.#sendResult({ type: 'result', id: frame.id, ok: true, value: value as JsonValue });
  }

  #replyError(frame: CallFrame, error: unknown): void {
    if (!this.#finishCall(frame.id)) return;
    let code: unknown;
    try {
      code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    } catch {
      code = undefined;
    }
    this.#sendError(frame.id, capErrorMessage(describeError(error)), typeof code === 'string' ? code : undefined);
  }

  #finishCall(id: number): boolean {
    if (this.#settled) return false;
    const bytes = this.#pending.get(id);
    if (bytes === undefined) return false;
    this.#pending.delete(id);
    this.#pendingArgsBytes -= bytes;
    return true;
  }

  #sendError(id: number, message: string, code?: string): void {
    this.#sendResult({ type: 'result', id, ok: false, error: { message, ...(code === undefined ? {} : { code }) } });
  }

  #sendResult(frame: ResultFrame): void {
    let line: string;
    try {
      line = encodeFrame(frame);
    } catch (error) {
      this.#sendError(frame.id, `the result could not be serialised: ${describeError(error)}`);
      return;
    }
    const bytes = Buffer.byteLength(line, 'utf8');
    if (bytes > this.#input.limits.maxFrameBytes) {
      this.#sendError(frame.id, `the result is ${bytes} bytes, more than the ${this.#input.limits.maxFrameBytes}-byte channel limit; ask for less (a range, a filter)`);
      return;
    }
    const queued = this.#input.child.send(line);
    if (queued > MAX_QUEUED_REPLY_BYTES) {
      this.#protocol(
        `the program stopped reading its replies (${queued} bytes queued, more than ${MAX_QUEUED_REPLY_BYTES}); ` +
          'do not block the event loop while tool calls are in flight',
      );
    }
  }

  #onChildExit(exit: PythonExit): void {
    if (this.#settled) return;
    const tail = exit.stderr.trim().split('\n').slice(-3).join(' | ').slice(-400);
    this.#settle(
      {
        error: {
          code: 'EXCEPTION',
          message: `the program's process ended before the program returned (${describeExit(exit.code, exit.signal)})${tail === '' ? '' : `: ${tail}`}`,
        },
      },
      'the previous program ended its process',
    );
  }

  #protocol(reason: string): void {
    this.#settle({ error: { code: 'PROTOCOL', message: `the program broke the control channel protocol: ${reason}` } }, 'the previous program broke the control channel');
  }

  /**
   * `byProgram`: the child reported `done` itself, so its process is in a known state and an in-memory
   * run may keep it; every other settlement kills it (`lost` says why, for the next run's note).
   */
  #settle(outcome: { value?: JsonValue; error?: ErrorInfo }, lost: string | undefined, byProgram = false): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#deadline !== undefined) clearTimeout(this.#deadline);
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    if (this.#onAbort !== undefined) this.#input.spec.signal?.removeEventListener('abort', this.#onAbort);
    if (this.#onClose !== undefined) this.#input.closeSignal.removeEventListener('abort', this.#onClose);
    this.#calls.abort();
    const error = outcome.error === undefined ? undefined : { code: outcome.error.code, message: capErrorMessage(outcome.error.message) };
    const result: RunResult = {
      ...(outcome.value === undefined || error !== undefined ? {} : { value: outcome.value }),
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
    if (this.#input.trackDescendants) child.trackDescendants();
    void child.dispose().then(() => this.#resolve({ result, kept: false, nextCallId, ...(lost === undefined ? {} : { lostBecause: lost }) }));
  }
}

function lookupBinding(spec: ResolvedRunSpec, global: string, member: string): BindingFunction | undefined {
  const binding = spec.bindings.find((candidate) => candidate.global === global);
  if (binding === undefined || !Object.prototype.hasOwnProperty.call(binding.functions, member)) return undefined;
  const fn: unknown = binding.functions[member];
  return typeof fn === 'function' ? (fn as BindingFunction) : undefined;
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an unprintable error';
  }
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function outputLimitError(maxOutputBytes: number): ErrorInfo {
  return {
    code: 'OUTPUT_LIMIT',
    message:
      `the program's output exceeded ${maxOutputBytes} bytes (logs plus the returned value); ` +
      'log less (counts, the first items, a summary) and return only what is needed',
  };
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}
