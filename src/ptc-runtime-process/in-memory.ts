// The conversations of an in-memory runtime (docs/in-memory-mode.md): per memory key, the kept
// process, the next call id, why the last one was lost (said once, in the next run's first log
// line), the idle timer, and a queue so one conversation's runs take turns. Nothing here is ever
// restored: a lost process is only reported.

import type { ProcessChild } from './process-child.js';

/** One conversation's kept process. */
export interface Memory {
  child: ProcessChild | undefined;
  policyKey: string;
  nextCallId: number;
  /** The kept process's channel key (docs/in-memory-mode.md, "What a later run can trust"). */
  channelKey: string | undefined;
  idle: NodeJS.Timeout | undefined;
  /** Why the last kept process was lost; said once, at the start of the next run. */
  lost: string | undefined;
  /** Runs of one conversation take turns. */
  queue: Promise<unknown>;
}

/** The line an in-memory run starts with after its conversation's process was lost. */
export function memoryResetNote(name: string, reason: string): string {
  return `[memory reset: the kept ${name} process was lost (${reason}); names defined by earlier programs are gone, define them again]`;
}

export class Memories {
  readonly #byKey = new WeakMap<object, Memory>();
  /** Memories holding a process, so close() can end them (a WeakMap cannot be listed). */
  readonly #live = new Set<Memory>();
  readonly #idleMs: number;

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  /** Whether `key`'s conversation holds a kept process now (then no warm child is needed). */
  holds(key: object): boolean {
    return this.#byKey.get(key)?.child !== undefined;
  }

  /** Runs `turn` after every earlier run of `key`'s conversation settled. */
  take<T>(key: object, policyKey: string, turn: (memory: Memory) => Promise<T>): Promise<T> {
    let memory = this.#byKey.get(key);
    if (memory === undefined) {
      memory = { child: undefined, policyKey, nextCallId: 1, channelKey: undefined, idle: undefined, lost: undefined, queue: Promise.resolve() };
      this.#byKey.set(key, memory);
    }
    const current = memory;
    const run = current.queue.then(() => {
      if (current.idle !== undefined) clearTimeout(current.idle);
      current.idle = undefined;
      return turn(current);
    });
    current.queue = run.catch(() => undefined);
    return run;
  }

  /** Keeps `child` for the conversation's next run, ended after the idle limit. */
  keep(memory: Memory, child: ProcessChild, policyKey: string, nextCallId: number, channelKey: string | undefined): void {
    memory.child = child;
    memory.channelKey = channelKey;
    memory.policyKey = policyKey;
    memory.nextCallId = nextCallId;
    this.#live.add(memory);
    memory.idle = setTimeout(() => {
      memory.idle = undefined;
      const idleChild = memory.child;
      memory.child = undefined;
      memory.lost = `it was idle for more than ${Math.round(this.#idleMs / 1000)} s`;
      this.#live.delete(memory);
      void idleChild?.dispose();
    }, this.#idleMs);
    memory.idle.unref();
  }

  /** The conversation holds no process now; `reason` (when the host killed it) is told to the next run. */
  drop(memory: Memory, reason: string | undefined): void {
    memory.child = undefined;
    memory.channelKey = undefined;
    this.#live.delete(memory);
    if (reason !== undefined) memory.lost = reason;
  }

  /** Ends `key`'s kept process once its running turn settled; its conversation ended. */
  async forget(key: object): Promise<void> {
    const memory = this.#byKey.get(key);
    if (memory === undefined) return;
    this.#byKey.delete(key);
    await memory.queue;
    await this.#end(memory);
  }

  /** Ends every kept process (the runtime closes). */
  async close(): Promise<void> {
    const kept = [...this.#live];
    await Promise.all(kept.map((memory) => this.#end(memory)));
  }

  async #end(memory: Memory): Promise<void> {
    if (memory.idle !== undefined) clearTimeout(memory.idle);
    memory.idle = undefined;
    this.#live.delete(memory);
    const child = memory.child;
    memory.child = undefined;
    await child?.dispose();
  }
}
