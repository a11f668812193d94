// In-memory mode, the Node child's side (docs/in-memory-mode.md, "Node"): a kept process runs the
// programs of one conversation one after another. bootstrap-source.ts appends this file's text to
// the bootstrap's, so both are one CommonJS script (the `export`s here are for the type checker and
// are removed there); it may use Node built-ins only and defines functions only at its top level, so
// the bootstrap can call them while the script is still running its own top-level code.
//
// The host sends a later `run` frame only after the previous program's `done`, and only to a child it
// kept. The frame asks to keep the namespace (`keep: true`); then the timers the previous program left
// are ended, the bootstrap clears its per-run state (ledger, pending calls, partial lines) and the
// program runs in the same global object. Its top-level names are already global properties: the host
// rewrote the program (top-level-names.ts). Call ids keep growing across runs, as the host expects.

import type { RunFrame } from '../../../../ptc-runtime-process/frames.js';

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const mapForEach: typeof import('./primordials.js').mapForEach;
declare const mapClear: typeof import('./primordials.js').mapClear;

/** What the bootstrap does between two kept runs. */
export interface KeptRunHooks {
  /** Clears the per-run state: output ledger, pending and waiting calls, partial output lines. */
  readonly reset: () => void;
}

export interface KeptRuns {
  /** The first run frame: a kept run starts tracking the timers programs start. */
  begin(frame: RunFrame): void;
  /** A run frame after `done`: true (the state reset) when it continues a kept namespace. */
  next(frame: RunFrame): boolean;
}

type TimerHandle = ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate>;

export function createKeptRuns(hooks: KeptRunHooks): KeptRuns {
  const timers = new Map<TimerHandle, 'timeout' | 'immediate'>();
  let tracking = false;
  const clearTimer = clearTimeout;
  const clearImmediateTimer = clearImmediate;

  /** Wraps the global timer functions so a later run can end what an earlier program left running. */
  function track(): void {
    if (tracking) return;
    tracking = true;
    const timeout = setTimeout;
    const interval = setInterval;
    const immediate = setImmediate;
    const wrap = <F extends (...args: never[]) => TimerHandle>(start: F, kind: 'timeout' | 'immediate', repeats: boolean): F => {
      const wrapped = function (this: unknown, callback: unknown, ...rest: unknown[]): TimerHandle {
        if (typeof callback !== 'function') return (start as unknown as (...args: unknown[]) => TimerHandle)(callback, ...rest);
        let handle: TimerHandle | undefined;
        const run = function (this: unknown, ...args: unknown[]): unknown {
          if (!repeats && handle !== undefined) timers.delete(handle);
          return (callback as (...args: unknown[]) => unknown).apply(this, args);
        };
        handle = (start as unknown as (...args: unknown[]) => TimerHandle)(run, ...rest);
        timers.set(handle, kind);
        return handle;
      };
      // util.promisify(setTimeout) and friends keep working through the original's custom form.
      for (const key of Reflect.ownKeys(start)) {
        if (key !== 'length' && key !== 'name' && key !== 'prototype') {
          const descriptor = Reflect.getOwnPropertyDescriptor(start, key);
          if (descriptor !== undefined) Reflect.defineProperty(wrapped, key, descriptor);
        }
      }
      return wrapped as unknown as F;
    };
    globalThis.setTimeout = wrap(timeout, 'timeout', false) as unknown as typeof setTimeout;
    globalThis.setInterval = wrap(interval, 'timeout', true) as unknown as typeof setInterval;
    globalThis.setImmediate = wrap(immediate, 'immediate', false) as unknown as typeof setImmediate;
  }

  /** Runs before the next program, on the captured Map methods: no earlier program's patch runs here. */
  function endTimers(): void {
    mapForEach(timers, (kind, handle) => {
      if (kind === 'immediate') clearImmediateTimer(handle as ReturnType<typeof setImmediate>);
      else clearTimer(handle as ReturnType<typeof setTimeout>);
    });
    mapClear(timers);
  }

  return {
    begin(frame) {
      if (frame.keep === true) track();
    },
    next(frame) {
      if (frame.keep !== true) return false;
      track();
      endTimers();
      hooks.reset();
      return true;
    },
  };
}
