// Children started ahead of time, keyed by policy (binds and flags are fixed at spawn), so a run's
// hot path is one frame to a waiting process. One program per child: a taken child is never returned.
// The pool grows under back-to-back demand and shrinks as children go unused, refills in the
// background once runs pause (each spawn() blocks the host's event loop), ends children left idle,
// drops the least recently used policy beyond its cap, and never keeps the host alive (idle children
// and timers are unref'd). docs/runtime-lifecycle.md, "The pool".

import { DEFAULT_POOL_MAX_SIZE } from '../limits.js';
import { POOL_MAX_STARTING, POOL_REFILL_QUIET_MS, POOL_REFILL_RESERVE_QUIET_MS, POOL_RESERVE_LOW } from './limits.js';

export { POOL_MAX_STARTING, POOL_REFILL_QUIET_MS, POOL_REFILL_RESERVE_QUIET_MS, POOL_RESERVE_LOW };

/** What the pool needs of a child (ProcessChild in production). */
export interface PoolChild {
  /** Ready and unused. */
  readonly usable: boolean;
  /** Ready or still starting, and neither exited nor being disposed. */
  readonly viable: boolean;
  readonly ready: Promise<void>;
  dispose(): Promise<void>;
}

export interface WarmPoolOptions {
  /** Children kept warm per policy when runs are spaced out (the floor). */
  readonly size: number;
  /**
   * Children the pool may grow to for one policy while runs come back to back: each take that leaves
   * no ready child raises the target by one, each child ended for idleness lowers it again. Default:
   * the larger of `size` and DEFAULT_POOL_MAX_SIZE.
   */
  readonly maxSize?: number;
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

/** One policy's children and demand. */
interface Policy<C extends PoolChild> {
  readonly slots: Slot<C>[];
  /** Children wanted warm now, between size and maxSize. */
  target: number;
  /** performance.now() of the last take or settled run. */
  lastActivity: number;
  /** A pending top-up, waiting for a pause in the runs, and when it fires (performance.now()). */
  refillTimer?: NodeJS.Timeout;
  refillDue?: number;
}

/** What the runtime tells the pool beyond its options. */
export interface WarmPoolHooks {
  /** True while scheduled refills should wait (warm runs in progress; boot-pause.ts `holding`). */
  readonly held?: () => boolean;
}

/**
 * The pause in a policy's runs its refill waits for: longer while it still has a reserve of ready
 * children, so a run stream paced faster than a boot uses them up before any boot competes with it.
 */
function quietBefore(policy: Policy<PoolChild>): number {
  let ready = 0;
  for (const slot of policy.slots) if (slot.child.usable && ++ready >= POOL_RESERVE_LOW) return POOL_REFILL_RESERVE_QUIET_MS;
  return POOL_REFILL_QUIET_MS;
}

export class WarmPool<C extends PoolChild> {
  readonly #options: WarmPoolOptions;
  readonly #held: () => boolean;
  readonly #maxSize: number;
  /** Insertion order is recency: the first key is the least recently used. */
  readonly #policies = new Map<string, Policy<C>>();
  #closed = false;

  constructor(options: WarmPoolOptions, hooks: WarmPoolHooks = {}) {
    this.#options = options;
    this.#held = hooks.held ?? (() => false);
    this.#maxSize = Math.max(options.size, options.maxSize ?? DEFAULT_POOL_MAX_SIZE);
  }

  /**
   * Takes a child for `key` (ready ones first, else one still starting), or undefined. Refilling is
   * the caller's call to fill() once its run settled; only when the taken child was not ready and
   * nothing is left warm or starting does a start begin right away, for concurrent runs.
   */
  take(key: string, start: () => C): C | undefined {
    if (this.#closed) return undefined;
    const policy = this.#touch(key);
    const { slots } = policy;
    const index = slots.findIndex((slot) => slot.child.usable);
    const chosen = index >= 0 ? index : slots.findIndex((slot) => slot.child.viable);
    let child: C | undefined;
    const warm = index >= 0;
    if (chosen >= 0) {
      const [slot] = slots.splice(chosen, 1);
      if (slot?.idleTimer !== undefined) clearTimeout(slot.idleTimer);
      child = slot?.child;
    }
    policy.lastActivity = performance.now();
    if (!this.refills) return child;
    // Runs are outpacing the pool: keep one more warm next time.
    if (!slots.some((slot) => slot.child.usable)) policy.target = Math.min(this.#maxSize, policy.target + 1);
    // Nothing left even starting, and this run waits for a boot itself: one start now for a
    // concurrent run, the rest after the burst. A warm run's replacement waits for its fill(): a
    // boot now would only compete with it (boot-pause.ts), and a concurrent run starts its own.
    if (!warm && !slots.some((slot) => slot.child.viable)) {
      setImmediate(() => {
        if (this.#closed || this.#policies.get(key) !== policy) return;
        this.#prune(policy);
        if (!policy.slots.some((slot) => slot.child.viable)) this.#topUp(key, policy, start, 1);
        this.#scheduleTopUp(key, policy, start);
      }).unref();
    }
    return child;
  }

  /** False when the pool starts children only on prime() (WarmPoolOptions.refill). */
  get refills(): boolean {
    return this.#options.refill !== false;
  }

  /** Makes sure children for `key` are warm or warming (a first run of this policy is coming). */
  prime(key: string, start: () => C): void {
    if (this.#closed) return;
    if (!this.#touch(key).slots.some((slot) => slot.child.viable)) this.#startNow(key, start);
  }

  /**
   * A run of `key` settled: brings the policy back to its target. When no child is warm or starting
   * the starts begin now; otherwise they wait for a pause of POOL_REFILL_QUIET_MS in the runs, so a
   * spawn() does not stall the next run of a burst.
   */
  fill(key: string, start: () => C): void {
    if (this.#closed) return;
    const policy = this.#touch(key);
    this.#prune(policy);
    policy.lastActivity = performance.now();
    if (!policy.slots.some((slot) => slot.child.viable)) this.#startNow(key, start);
    else this.#scheduleTopUp(key, policy, start);
  }

  /** Children of `key` warm or starting, and the current target (for tests and diagnostics). */
  stats(key: string): { readonly warm: number; readonly starting: number; readonly target: number } | undefined {
    const policy = this.#policies.get(key);
    if (policy === undefined) return undefined;
    const warm = policy.slots.filter((slot) => slot.child.usable).length;
    const starting = policy.slots.filter((slot) => slot.child.viable && !slot.child.usable).length;
    return { warm, starting, target: policy.target };
  }

  /** Children of every policy still starting (not yet ready, not taken). */
  *booting(): Iterable<C> {
    for (const policy of this.#policies.values()) {
      for (const slot of policy.slots) if (slot.child.viable && !slot.child.usable) yield slot.child;
    }
  }

  /** Ends every warm child; later take() calls find nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#policies.values()].flatMap((policy) => {
      if (policy.refillTimer !== undefined) clearTimeout(policy.refillTimer);
      return policy.slots;
    });
    this.#policies.clear();
    for (const slot of all) if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    await Promise.all(all.map((slot) => slot.child.dispose()));
  }

  #startNow(key: string, start: () => C): void {
    if (this.#closed) return;
    const policy = this.#touch(key);
    this.#prune(policy);
    this.#topUp(key, policy, start);
  }

  /** Starts children up to the target (or `limit`), at most POOL_MAX_STARTING booting at once (at least one). */
  #topUp(key: string, policy: Policy<C>, start: () => C, limit = policy.target): void {
    const { slots } = policy;
    let starting = slots.filter((slot) => !slot.child.usable).length;
    while (slots.length < Math.min(limit, policy.target) && (starting < POOL_MAX_STARTING || slots.length === 0)) {
      const slot: Slot<C> = { child: start() };
      slots.push(slot);
      starting++;
      slot.child.ready.then(
        () => {
          this.#armIdle(key, slot);
          // One booted: the next may start, once the runs pause.
          if (this.#policies.get(key) === policy && slots.length < policy.target) this.#scheduleTopUp(key, policy, start);
        },
        // A child that cannot start is dropped; the next take() starts over (no retry loop here).
        () => this.#drop(key, slot),
      );
    }
  }

  #scheduleTopUp(key: string, policy: Policy<C>, start: () => C): void {
    if (!this.refills || this.#closed) return;
    // While warm runs hold the boots back, look again a quiet period later.
    const now = performance.now();
    const wait = this.#held() ? POOL_REFILL_QUIET_MS : Math.max(0, policy.lastActivity + quietBefore(policy) - now);
    if (policy.refillTimer !== undefined) {
      // One is pending; a reserve spent since it was set shortens the pause it waits for.
      if ((policy.refillDue ?? 0) <= now + wait) return;
      clearTimeout(policy.refillTimer);
    }
    policy.refillDue = now + wait;
    policy.refillTimer = setTimeout(() => {
      policy.refillTimer = undefined;
      if (this.#closed || this.#policies.get(key) !== policy) return;
      // A run came in the meantime, or one is still going on: wait for the next pause.
      if (performance.now() - policy.lastActivity < quietBefore(policy) || this.#held()) this.#scheduleTopUp(key, policy, start);
      else {
        this.#prune(policy);
        this.#topUp(key, policy, start);
      }
    }, wait);
    policy.refillTimer.unref();
  }

  /** Disposes children that exited or are being disposed. */
  #prune(policy: Policy<C>): void {
    const { slots } = policy;
    for (let i = 0; i < slots.length; ) {
      const slot = slots[i] as Slot<C>;
      if (slot.child.viable) i++;
      else {
        slots.splice(i, 1);
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
        void slot.child.dispose();
      }
    }
  }

  #touch(key: string): Policy<C> {
    let policy = this.#policies.get(key);
    if (policy !== undefined) this.#policies.delete(key);
    policy ??= { slots: [], target: this.#options.size, lastActivity: 0 };
    this.#policies.set(key, policy);
    while (this.#policies.size > this.#options.maxPolicies) {
      const [oldestKey, oldest] = this.#policies.entries().next().value as [string, Policy<C>];
      this.#policies.delete(oldestKey);
      if (oldest.refillTimer !== undefined) clearTimeout(oldest.refillTimer);
      for (const slot of oldest.slots) {
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
        void slot.child.dispose();
      }
    }
    return policy;
  }

  #armIdle(key: string, slot: Slot<C>): void {
    if (!this.#policies.get(key)?.slots.includes(slot)) return;
    slot.idleTimer = setTimeout(() => {
      const policy = this.#policies.get(key);
      // Unused for idleMs: the demand that grew the pool has passed.
      if (policy !== undefined) policy.target = Math.max(this.#options.size, policy.target - 1);
      this.#drop(key, slot);
    }, this.#options.idleMs);
    slot.idleTimer.unref();
  }

  #drop(key: string, slot: Slot<C>): void {
    const slots = this.#policies.get(key)?.slots;
    const index = slots?.indexOf(slot) ?? -1;
    // A slot no longer in the pool was taken: its child belongs to a run now.
    if (slots === undefined || index < 0) return;
    slots.splice(index, 1);
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    void slot.child.dispose();
  }
}
