// Children started ahead of time, keyed by policy (binds and flags are fixed at spawn), so a run's
// hot path is one frame to a waiting process. One program per child: a taken child is never returned.
// The pool refills in the background, ends children left idle, drops the least recently used policy
// beyond its cap, and never keeps the host alive (idle children and timers are unref'd).

/** What the pool needs of a child (ProgramChild in production). */
export interface PoolChild {
  /** Ready and unused. */
  readonly usable: boolean;
  /** Ready or still starting, and neither exited nor being disposed. */
  readonly viable: boolean;
  readonly ready: Promise<void>;
  dispose(): Promise<void>;
}

export interface WarmPoolOptions {
  readonly size: number;
  readonly idleMs: number;
  readonly maxPolicies: number;
  /**
   * Start a replacement when a child is taken (false: only prime() starts children, for a one-shot
   * caller that runs one program and would never use the replacement). Default true.
   */
  readonly refill?: boolean;
}

interface Slot<C extends PoolChild> {
  readonly child: C;
  idleTimer?: NodeJS.Timeout;
}

export class WarmPool<C extends PoolChild> {
  readonly #options: WarmPoolOptions;
  /** Insertion order is recency: the first key is the least recently used. */
  readonly #slots = new Map<string, Slot<C>[]>();
  #closed = false;

  constructor(options: WarmPoolOptions) {
    this.#options = options;
  }

  /**
   * Takes a child for `key` (ready ones first, else one still starting), or undefined. Refilling is
   * the caller's call to fill() once its run settled, so a new spawn does not compete with the run for
   * CPU; only when nothing is left warm does the refill start right away, for concurrent runs.
   */
  take(key: string, start: () => C): C | undefined {
    if (this.#closed) return undefined;
    const slots = this.#touch(key);
    const index = slots.findIndex((slot) => slot.child.usable);
    const chosen = index >= 0 ? index : slots.findIndex((slot) => slot.child.viable);
    let child: C | undefined;
    if (chosen >= 0) {
      const [slot] = slots.splice(chosen, 1);
      if (slot?.idleTimer !== undefined) clearTimeout(slot.idleTimer);
      child = slot?.child;
    }
    if (this.refills && !slots.some((slot) => slot.child.viable)) setImmediate(() => this.fill(key, start)).unref();
    return child;
  }

  /** False when the pool starts children only on prime() (WarmPoolOptions.refill). */
  get refills(): boolean {
    return this.#options.refill !== false;
  }

  /** Makes sure at least one child for `key` is warm or warming (a first run of this policy is coming). */
  prime(key: string, start: () => C): void {
    if (this.#closed) return;
    if (!this.#touch(key).some((slot) => slot.child.viable)) this.fill(key, start);
  }

  /** Starts children for `key` until `size` are warm or warming. */
  fill(key: string, start: () => C): void {
    if (this.#closed) return;
    const slots = this.#touch(key);
    for (let i = 0; i < slots.length; ) {
      const slot = slots[i] as Slot<C>;
      if (slot.child.viable) i++;
      else {
        slots.splice(i, 1);
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
        void slot.child.dispose();
      }
    }
    while (slots.length < this.#options.size) {
      const slot: Slot<C> = { child: start() };
      slots.push(slot);
      slot.child.ready.then(
        () => this.#armIdle(key, slot),
        // A child that cannot start is dropped; the next take() starts over (no retry loop here).
        () => this.#drop(key, slot),
      );
    }
  }

  /** Ends every warm child; later take() calls find nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#slots.values()].flat();
    this.#slots.clear();
    for (const slot of all) if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    await Promise.all(all.map((slot) => slot.child.dispose()));
  }

  #touch(key: string): Slot<C>[] {
    let slots = this.#slots.get(key);
    if (slots !== undefined) this.#slots.delete(key);
    slots ??= [];
    this.#slots.set(key, slots);
    while (this.#slots.size > this.#options.maxPolicies) {
      const [oldestKey, oldest] = this.#slots.entries().next().value as [string, Slot<C>[]];
      this.#slots.delete(oldestKey);
      for (const slot of oldest) {
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
        void slot.child.dispose();
      }
    }
    return slots;
  }

  #armIdle(key: string, slot: Slot<C>): void {
    if (!this.#slots.get(key)?.includes(slot)) return;
    slot.idleTimer = setTimeout(() => this.#drop(key, slot), this.#options.idleMs);
    slot.idleTimer.unref();
  }

  #drop(key: string, slot: Slot<C>): void {
    const slots = this.#slots.get(key);
    const index = slots?.indexOf(slot) ?? -1;
    // A slot no longer in the pool was taken: its child belongs to a run now.
    if (slots === undefined || index < 0) return;
    slots.splice(index, 1);
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    void slot.child.dispose();
  }
}
