import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ExecutionMode } from '../tools/tool-runtime.js';
import { DispatchPool } from './dispatch-pool.js';

/** A controllable call: records when it starts, finishes when the test says so. */
function harness(pool: DispatchPool) {
  const events: string[] = [];
  const finishers = new Map<string, () => void>();
  const signals = new Map<string, AbortSignal>();
  const submit = (name: string, mode: ExecutionMode) =>
    pool.submit(mode, (signal) => {
      events.push(`start ${name}`);
      signals.set(name, signal);
      return new Promise<string>((resolve, reject) => {
        finishers.set(name, () => {
          events.push(`end ${name}`);
          resolve(name);
        });
        signal.addEventListener('abort', () => {
          events.push(`abort ${name}`);
          reject(signal.reason);
        });
      });
    });
  const finish = async (name: string) => {
    finishers.get(name)!();
    await flush();
  };
  return { events, submit, finish, signals };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('DispatchPool', () => {
  it('overlaps consecutive parallel calls up to the bound, starting in submission order', async () => {
    const pool = new DispatchPool(2);
    const h = harness(pool);
    const all = ['a', 'b', 'c', 'd'].map((n) => h.submit(n, 'parallel'));
    await flush();
    expect(h.events).toEqual(['start a', 'start b']);
    await h.finish('b');
    expect(h.events).toEqual(['start a', 'start b', 'end b', 'start c']);
    await h.finish('a');
    await h.finish('c');
    await h.finish('d');
    expect(await Promise.all(all)).toEqual(['a', 'b', 'c', 'd']);
    expect(h.events.filter((e) => e.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d']);
  });

  it('an exclusive call waits for the pool to drain, runs alone, and holds back later calls', async () => {
    const pool = new DispatchPool(10);
    const h = harness(pool);
    void h.submit('r1', 'parallel');
    void h.submit('r2', 'parallel');
    void h.submit('w', 'exclusive');
    void h.submit('r3', 'parallel');
    await flush();
    expect(h.events).toEqual(['start r1', 'start r2']);
    await h.finish('r1');
    expect(h.events).toEqual(['start r1', 'start r2', 'end r1']);
    await h.finish('r2');
    expect(h.events.slice(-2)).toEqual(['end r2', 'start w']);
    expect(pool.active).toBe(1);
    await h.finish('w');
    expect(h.events.slice(-2)).toEqual(['end w', 'start r3']);
  });

  it('maxParallel 1 restores serial dispatch', async () => {
    const pool = new DispatchPool(1);
    const h = harness(pool);
    void h.submit('a', 'parallel');
    void h.submit('b', 'parallel');
    await flush();
    expect(h.events).toEqual(['start a']);
    await h.finish('a');
    expect(h.events).toEqual(['start a', 'end a', 'start b']);
  });

  it('settle abandons queued calls, aborts running ones and awaits them', async () => {
    const pool = new DispatchPool(1);
    const h = harness(pool);
    const running = h.submit('a', 'parallel');
    const queued = h.submit('b', 'parallel');
    await flush();
    await pool.settle();
    expect(h.events).toEqual(['start a', 'abort a']);
    await expect(running).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
    expect(pool.active).toBe(0);
    await expect(h.submit('late', 'parallel')).rejects.toMatchObject({ code: 'ABORTED' });
    expect(h.events).not.toContain('start late');
    expect(h.events).not.toContain('start b');
  });

  it('a call that ignores its abort signal is still awaited by settle', async () => {
    const pool = new DispatchPool(2);
    let release!: () => void;
    let finished = false;
    void pool.submit('parallel', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    await flush();
    const settling = pool.settle().then(() => 'settled');
    await flush();
    expect(finished).toBe(false);
    release();
    expect(await settling).toBe('settled');
    expect(finished).toBe(true);
  });

  it("aborts a running call when a followed signal aborts, and stops following once the call ends", async () => {
    const pool = new DispatchPool(2);
    const outer = new AbortController();
    const later = new AbortController();
    const seen: AbortSignal[] = [];
    const hang = pool.submit(
      'parallel',
      (signal) => {
        seen.push(signal);
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      [outer.signal],
    );
    const quick = pool.submit(
      'parallel',
      async (signal) => {
        seen.push(signal);
        return 'done';
      },
      [later.signal],
    );
    expect(await quick).toBe('done');
    outer.abort(new Error('outer stopped'));
    await expect(hang).rejects.toThrow('outer stopped');
    later.abort(new Error('too late'));
    expect(seen.map((signal) => signal.aborted)).toEqual([true, false]);
    const already = await pool.submit('parallel', async (signal) => signal.aborted, [outer.signal]);
    expect(already).toBe(true);
  });

  it('adds one listener to a signal that many calls follow, and removes it at settlement', async () => {
    const pool = new DispatchPool(20);
    const shared = new AbortController();
    const calls = Array.from({ length: 20 }, () =>
      pool.submit('parallel', (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'))), [shared.signal]),
    );
    await flush();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    await pool.settle();
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, () => 'aborted'));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new DispatchPool(0)).toThrow(RangeError);
    expect(() => new DispatchPool(1.5)).toThrow(RangeError);
  });

  describe('with shareSignals (a program\'s sub-calls)', () => {
    it('gives the calls that follow the same signals one signal, aborted by a followed signal with its reason', async () => {
      const pool = new DispatchPool(4, { shareSignals: true });
      const run = new AbortController();
      const seen: AbortSignal[] = [];
      const done = await pool.submit('parallel', async (signal) => (seen.push(signal), 'done'), [run.signal]);
      const hang = pool.submit(
        'parallel',
        (signal) => (seen.push(signal), new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))),
        [run.signal],
      );
      await flush();
      expect(done).toBe('done');
      expect(seen[0]).toBe(seen[1]);
      run.abort(new Error('run stopped'));
      await expect(hang).rejects.toThrow('run stopped');
      expect(await pool.submit('parallel', async (signal) => signal.aborted, [run.signal])).toBe(true);
    });

    it('aborts the shared signal at settlement, a finished call\'s included, and keeps other followers apart', async () => {
      const pool = new DispatchPool(4, { shareSignals: true });
      const run = new AbortController();
      const other = new AbortController();
      const finished = await pool.submit('parallel', async (signal) => signal, [run.signal]);
      const apart = await pool.submit('parallel', async (signal) => signal, [other.signal]);
      expect(apart).not.toBe(finished);
      expect(finished.aborted).toBe(false);
      await pool.settle();
      expect(finished.aborted).toBe(true);
      expect(finished.reason).toMatchObject({ code: 'ABORTED' });
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
      expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
    });
  });
});
