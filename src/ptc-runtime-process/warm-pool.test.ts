import { describe, expect, it, vi } from 'vitest';
import { POOL_MAX_STARTING, POOL_REFILL_QUIET_MS, POOL_REFILL_RESERVE_QUIET_MS, POOL_RESERVE_LOW, WarmPool, type PoolChild } from './warm-pool.js';

class FakeChild implements PoolChild {
  readonly ready: Promise<void>;
  started = false;
  disposed = false;
  exited = false;
  #settle!: { resolve: () => void; reject: (error: Error) => void };

  constructor() {
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.ready.catch(() => undefined);
  }
  start(): void {
    this.started = true;
    this.#settle.resolve();
  }
  fail(): void {
    this.#settle.reject(new Error('no'));
  }
  get usable(): boolean {
    return this.started && this.viable;
  }
  get viable(): boolean {
    return !this.disposed && !this.exited;
  }
  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}

function factory() {
  const made: FakeChild[] = [];
  return { made, start: () => { const child = new FakeChild(); made.push(child); return child; } };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `test` with the pool's clocks faked (its timers, setImmediate and performance.now), then restores them. */
async function withPoolTimers(test: () => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
  try {
    await test();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * A pool of `size` for policy `a` with every child booted (under fake timers): primed, then each
 * round of starts booted and the reserve's pause let pass, until all are warm.
 */
async function warmPoolOf(size: number) {
  const pool = new WarmPool<FakeChild>({ size, idleMs: 60_000, maxPolicies: 4 });
  const { made, start } = factory();
  pool.prime('a', start);
  for (let round = 0; round < size && pool.stats('a')?.warm !== size; round++) {
    for (const child of made) if (!child.started) child.start();
    await Promise.resolve();
    vi.advanceTimersByTime(POOL_REFILL_RESERVE_QUIET_MS);
  }
  expect(pool.stats('a')).toEqual({ warm: size, starting: 0, target: size });
  return { pool, made, start };
}

describe('WarmPool', () => {
  it('fills to size and hands out ready children first', async () => {
    const pool = new WarmPool<FakeChild>({ size: 2, idleMs: 60_000, maxPolicies: 4 });
    const { made, start } = factory();
    pool.fill('a', start);
    expect(made).toHaveLength(2);
    made[1]?.start();
    await tick();
    expect(pool.take('a', start)).toBe(made[1]);
    expect(pool.take('a', start)).toBe(made[0]);
    await pool.close();
  });

  it('leaves refilling to the caller while a child is left, and starts one at once when none is', async () => {
    await withPoolTimers(async () => {
      const pool = new WarmPool<FakeChild>({ size: 2, idleMs: 60_000, maxPolicies: 4 });
      const { made, start } = factory();
      pool.fill('a', start);
      pool.take('a', start);
      vi.runAllTicks();
      vi.advanceTimersToNextTimer();
      expect(made).toHaveLength(2);
      pool.take('a', start);
      // The start for a concurrent run comes on the next turn (setImmediate).
      vi.advanceTimersToNextTimer();
      expect(made).toHaveLength(3);
      // The caller's fill() after its run: children are starting, so the top-up waits for a pause.
      pool.fill('a', start);
      expect(made).toHaveLength(3);
      vi.advanceTimersByTime(POOL_REFILL_QUIET_MS - 1);
      expect(made).toHaveLength(3);
      vi.advanceTimersByTime(1);
      // Two takes found nothing ready: the target grew from 2 to 4, at most POOL_MAX_STARTING boot at once.
      expect(pool.stats('a')).toEqual({ warm: 0, starting: POOL_MAX_STARTING, target: 4 });
      await pool.close();
    });
  });

  it('grows under back-to-back takes up to maxSize, refills only after a pause, and shrinks as children idle', async () => {
    await withPoolTimers(async () => {
      const pool = new WarmPool<FakeChild>({ size: 2, maxSize: 5, idleMs: 10_000, maxPolicies: 4 });
      const { made, start } = factory();
      const bootAll = async () => {
        for (const child of made) if (!child.started && !child.disposed) child.start();
        await Promise.resolve();
        await Promise.resolve();
      };
      pool.prime('a', start);
      await bootAll();
      // A burst of runs, each settling (fill) before the next takes: no start while it lasts.
      for (let i = 0; i < 8; i++) {
        pool.take('a', start);
        vi.advanceTimersByTime(5);
        pool.fill('a', start);
        await bootAll();
      }
      expect(pool.stats('a')?.target).toBe(5);
      const duringBurst = made.length;
      // The pause: the pool tops up to the target, two booting at a time.
      for (let i = 0; i < 5; i++) {
        vi.advanceTimersByTime(POOL_REFILL_QUIET_MS);
        await bootAll();
      }
      expect(pool.stats('a')).toEqual({ warm: 5, starting: 0, target: 5 });
      expect(made.length).toBeGreaterThan(duringBurst);
      // Unused children end after idleMs, and the target falls back to size.
      vi.advanceTimersByTime(10_000);
      await bootAll();
      expect(pool.stats('a')).toEqual({ warm: 0, starting: 0, target: 2 });
      await pool.close();
    });
  });

  it('holds scheduled top-ups while the runtime says runs hold them, and starts them in the next pause', async () => {
    await withPoolTimers(async () => {
      let held = true;
      const pool = new WarmPool<FakeChild>({ size: 3, idleMs: 60_000, maxPolicies: 4 }, { held: () => held });
      const { made, start } = factory();
      pool.prime('a', start);
      expect(made).toHaveLength(POOL_MAX_STARTING);
      for (const child of made) child.start();
      await Promise.resolve();
      // Two are warm, so the top-up to size 3 waits for a pause; a long run holds it back.
      pool.fill('a', start);
      vi.advanceTimersByTime(POOL_REFILL_QUIET_MS * 10);
      expect(made).toHaveLength(2);
      held = false;
      vi.advanceTimersByTime(POOL_REFILL_QUIET_MS - 1);
      expect(made).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(made).toHaveLength(3);
      await pool.close();
    });
  });

  it('spends a reserve of ready children before refilling: the longer pause while two or more are ready, the short one below', async () => {
    await withPoolTimers(async () => {
      const { pool, made, start } = await warmPoolOf(4);
      const booted = made.length;
      // Runs paced faster than the reserve pause: three ready ones are left, then two, and no boot starts.
      for (let run = 0; run < 2; run++) {
        pool.take('a', start);
        pool.fill('a', start);
        vi.advanceTimersByTime(POOL_REFILL_RESERVE_QUIET_MS - 1);
        expect(made).toHaveLength(booted);
      }
      // A pause as long as the reserve's: the top-up starts.
      vi.advanceTimersByTime(1);
      expect(made).toHaveLength(booted + POOL_MAX_STARTING);
      // Once fewer than POOL_RESERVE_LOW are ready, the short pause is enough.
      for (const child of made) if (!child.started) child.start();
      await Promise.resolve();
      pool.take('a', start);
      pool.take('a', start);
      pool.take('a', start);
      expect(pool.stats('a')?.warm).toBe(POOL_RESERVE_LOW - 1);
      pool.fill('a', start);
      const before = made.length;
      vi.advanceTimersByTime(POOL_REFILL_QUIET_MS);
      expect(made.length).toBeGreaterThan(before);
      expect(POOL_REFILL_RESERVE_QUIET_MS).toBeGreaterThan(POOL_REFILL_QUIET_MS);
      await pool.close();
    });
  });

  it('brings a pending top-up forward when the reserve runs low before it fires', async () => {
    await withPoolTimers(async () => {
      const { pool, made, start } = await warmPoolOf(3);
      const booted = made.length;
      // Two left: the top-up waits for the reserve's pause.
      pool.take('a', start);
      pool.fill('a', start);
      vi.advanceTimersByTime(10);
      // One left: the short pause from this run on, not the rest of the long one.
      pool.take('a', start);
      pool.fill('a', start);
      vi.advanceTimersByTime(POOL_REFILL_QUIET_MS - 1);
      expect(made).toHaveLength(booted);
      vi.advanceTimersByTime(1);
      expect(made.length).toBeGreaterThan(booted);
      await pool.close();
    });
  });

  it('leaves the replacement of a warm take to its fill(), which starts it at once when nothing is left', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 4 });
    const { made, start } = factory();
    pool.fill('a', start);
    made[0]?.start();
    await tick();
    expect(pool.take('a', start)).toBe(made[0]);
    await tick();
    // Nothing started while the warm run goes on (boot-pause.ts: a boot would only compete with it).
    expect(made).toHaveLength(1);
    expect([...pool.booting()]).toEqual([]);
    // The take found nothing else ready, so the target grew to 2: both start now.
    pool.fill('a', start);
    expect(made).toHaveLength(3);
    expect([...pool.booting()]).toEqual([made[1], made[2]]);
    await pool.close();
  });

  it('primes a policy with one child only when none is warm', async () => {
    const pool = new WarmPool<FakeChild>({ size: 2, idleMs: 60_000, maxPolicies: 4 });
    const { made, start } = factory();
    pool.prime('a', start);
    expect(made).toHaveLength(2);
    pool.take('a', start);
    pool.prime('a', start);
    expect(made).toHaveLength(2);
    await pool.close();
  });

  it('with refill off, starts children only when primed (one child for a one-shot run)', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 4, refill: false });
    const { made, start } = factory();
    pool.prime('a', start);
    expect(made).toHaveLength(1);
    expect(pool.take('a', start)).toBe(made[0]);
    await tick();
    expect(made).toHaveLength(1);
    expect(pool.refills).toBe(false);
    pool.prime('a', start);
    expect(made).toHaveLength(2);
    await pool.close();
  });

  it('returns undefined when nothing is warm for the policy, and keys by policy', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 4 });
    const { made, start } = factory();
    pool.fill('a', start);
    expect(pool.take('b', start)).toBeUndefined();
    await tick();
    expect(made).toHaveLength(2);
    expect(pool.take('a', start)).toBe(made[0]);
    await pool.close();
  });

  it('drops a child that fails to start and disposes exited ones on the next fill', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 4 });
    const { made, start } = factory();
    pool.fill('a', start);
    made[0]?.fail();
    await tick();
    expect(made[0]?.disposed).toBe(true);
    pool.fill('a', start);
    expect(made).toHaveLength(2);
    (made[1] as FakeChild).exited = true;
    pool.fill('a', start);
    expect(made[1]?.disposed).toBe(true);
    expect(made).toHaveLength(3);
    await pool.close();
  });

  it('ends a child left idle past idleMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 1_000, maxPolicies: 4 });
      const { made, start } = factory();
      pool.fill('a', start);
      made[0]?.start();
      await made[0]?.ready;
      vi.advanceTimersByTime(999);
      expect(made[0]?.disposed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(made[0]?.disposed).toBe(true);
      await pool.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('evicts the least recently used policy beyond maxPolicies', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 2 });
    const { made, start } = factory();
    pool.fill('a', start);
    pool.fill('b', start);
    pool.fill('a', start);
    pool.fill('c', start);
    expect(made.map((child) => child.disposed)).toEqual([false, true, false]);
    await pool.close();
    expect(made.every((child) => child.disposed)).toBe(true);
  });

  it('never hands out children after close', async () => {
    const pool = new WarmPool<FakeChild>({ size: 1, idleMs: 60_000, maxPolicies: 2 });
    const { start } = factory();
    pool.fill('a', start);
    await pool.close();
    expect(pool.take('a', start)).toBeUndefined();
  });
});
