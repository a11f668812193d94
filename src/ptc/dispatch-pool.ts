// The dispatch pool of one program run: calls START strictly in submission order; consecutive
// parallel-classified calls overlap up to a bound; an exclusive call waits for the pool to drain and
// runs alone. Settlement abandons what has not started and aborts and awaits what is running.

import { setMaxListeners } from 'node:events';
import { AbortedError } from '../errors.js';
import type { ExecutionMode } from '../tools/tool-runtime.js';
import { DEFAULT_MAX_PARALLEL_SUB_CALLS } from './limits.js';
export { DEFAULT_MAX_PARALLEL_SUB_CALLS };

interface Job {
  readonly mode: ExecutionMode;
  readonly start: (signal: AbortSignal) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly follow: readonly AbortSignal[];
  controller?: AbortController;
  done?: Promise<void>;
}

interface FollowedSignal {
  readonly jobs: Set<AbortController>;
  readonly onAbort: () => void;
}

function noop(): void {}

export interface DispatchPoolOptions {
  /**
   * One signal for every call that follows the same signals, aborted when one of them aborts or at
   * settlement, instead of one per call that stops following once its call ends. A program's
   * sub-calls all follow its run's signals and are all stopped when it settles, so they share one:
   * an AbortController costs ~15 µs on Node 20, most of a trivial sub-call's pipeline
   * (docs/control-channel.md, "Hot path"). What changes: a finished call's signal may still abort,
   * when its run settles.
   */
  readonly shareSignals?: boolean;
}

/** The controller the calls following `follow` share (DispatchPoolOptions.shareSignals). */
interface SharedSignal {
  readonly follow: readonly AbortSignal[];
  readonly controller: AbortController;
}

function sameSignals(a: readonly AbortSignal[], b: readonly AbortSignal[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class DispatchPool {
  private readonly queue: Job[] = [];
  private readonly running = new Set<Job>();
  private exclusiveRunning = false;
  private settled = false;

  private readonly maxParallel: number;
  /** One listener per followed signal, shared by the running jobs that follow it (see follow). */
  private readonly followed = new Map<AbortSignal, FollowedSignal>();
  private readonly shareSignals: boolean;
  /** The shared controllers, one per list of followed signals (a Bridge has one list). */
  private readonly shared: SharedSignal[] = [];

  constructor(maxParallel: number = DEFAULT_MAX_PARALLEL_SUB_CALLS, options: DispatchPoolOptions = {}) {
    if (!Number.isInteger(maxParallel) || maxParallel < 1) {
      throw new RangeError(`maxParallel must be a positive integer, got ${maxParallel}`);
    }
    this.maxParallel = maxParallel;
    this.shareSignals = options.shareSignals === true;
  }

  /** How many calls are running right now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Queues a call. `start` runs when the pool admits it, with a signal aborted at settlement or as
   * soon as one of `follow` aborts. After settlement, or when abandoned unstarted, the promise
   * rejects with AbortedError.
   */
  submit<T>(mode: ExecutionMode, start: (signal: AbortSignal) => Promise<T>, follow: readonly AbortSignal[] = []): Promise<T> {
    if (this.settled) return Promise.reject(new AbortedError('The program run has settled; no new calls start.'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ mode, start, resolve: resolve as (v: unknown) => void, reject, follow });
      this.pump();
    });
  }

  /** Abandons queued calls, aborts running ones and resolves once every running call has finished. */
  async settle(): Promise<void> {
    this.settled = true;
    for (const job of this.queue.splice(0)) job.reject(new AbortedError('Abandoned: the program run settled before this call started.'));
    const running = [...this.running];
    const reason = new AbortedError('The program run settled.');
    for (const job of running) job.controller!.abort(reason);
    for (const entry of this.shared.splice(0)) entry.controller.abort(reason);
    await Promise.all(running.map((job) => job.done));
    for (const [signal, entry] of this.followed) signal.removeEventListener('abort', entry.onAbort);
    this.followed.clear();
  }

  /**
   * Makes a job's signal abort when any of `signals` does (at once if one already has); returns the
   * cleanup for when the job ends. A signal shared by many calls (the run's) gets one listener for
   * the pool's lifetime, removed at settlement, not one per call. AbortSignal.any would do the same,
   * but on Node 20 it costs far more per call and leaves a weak reference in every long-lived source
   * signal until a GC (docs/control-channel.md, "Hot path").
   */
  private follow(controller: AbortController, signals: readonly AbortSignal[]): () => void {
    for (const signal of signals) {
      if (signal.aborted) {
        controller.abort(signal.reason);
        return noop;
      }
    }
    const entries: FollowedSignal[] = [];
    for (const signal of signals) {
      let entry = this.followed.get(signal);
      if (entry === undefined) {
        const jobs = new Set<AbortController>();
        const created: FollowedSignal = { jobs, onAbort: () => jobs.forEach((job) => job.abort(signal.reason)) };
        signal.addEventListener('abort', created.onAbort, { once: true });
        this.followed.set(signal, created);
        entry = created;
      }
      entry.jobs.add(controller);
      entries.push(entry);
    }
    return () => {
      for (const entry of entries) entry.jobs.delete(controller);
    };
  }

  private pump(): void {
    while (!this.settled && this.queue.length > 0) {
      const head = this.queue[0]!;
      if (this.exclusiveRunning) return;
      if (head.mode === 'exclusive' ? this.running.size > 0 : this.running.size >= this.maxParallel) return;
      this.queue.shift();
      this.launch(head);
    }
  }

  /** The job's controller and what ends its following: its own, or the one its followers share. */
  private controllerFor(job: Job): { controller: AbortController; unfollow: () => void } {
    if (!this.shareSignals) {
      const controller = new AbortController();
      return { controller, unfollow: this.follow(controller, job.follow) };
    }
    const shared = this.shared.find((entry) => sameSignals(entry.follow, job.follow));
    if (shared !== undefined) return { controller: shared.controller, unfollow: noop };
    const controller = new AbortController();
    // Every call of a run may listen on it at once (up to the pool's bound, each a few listeners).
    setMaxListeners(0, controller.signal);
    // Followed until settlement.
    this.follow(controller, job.follow);
    this.shared.push({ follow: job.follow, controller });
    return { controller, unfollow: noop };
  }

  private launch(job: Job): void {
    const { controller, unfollow } = this.controllerFor(job);
    job.controller = controller;
    this.running.add(job);
    if (job.mode === 'exclusive') this.exclusiveRunning = true;
    job.done = (async () => {
      try {
        job.resolve(await job.start(controller.signal));
      } catch (error) {
        job.reject(error);
      } finally {
        unfollow();
        this.running.delete(job);
        if (job.mode === 'exclusive') this.exclusiveRunning = false;
        this.pump();
      }
    })();
  }
}

