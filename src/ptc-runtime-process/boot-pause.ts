// Warm runs before pool refills (docs/runtime-lifecycle.md, "The pool"). A child booting for the pool
// costs a full interpreter start-up of CPU (about as much as `node -e 0`), and on a small machine a
// warm run that overlaps one is slowed down by it: a short run waits for the CPU, and a run busy with
// binding calls (its process and the host each keep a core busy) loses a share of both. While at least
// one warm run is in progress, children still booting for the pool are stopped (SIGSTOP), and the
// pool holds its scheduled refills (`holding`) and the thaw of finished, frozen sandboxes (whose
// teardown costs CPU too; holdThaws in src/sandbox/freezer.ts); all go on once no warm run is left or
// after BOOT_PAUSE_MAX_MS, so a long program never starves its own replacement.

import { holdThaws } from '../sandbox/index.js';
import { BOOT_PAUSE_MAX_MS } from './limits.js';
export { BOOT_PAUSE_MAX_MS };

/** What BootPause needs of a child (ProcessChild in production). */
export interface PausableChild {
  /** Stops the child if it is still booting; false when it is not (or could not be stopped). */
  pauseBoot(): boolean;
  resumeBoot(): void;
}

export class BootPause<C extends PausableChild> {
  readonly #booting: () => Iterable<C>;
  #runs = 0;
  readonly #paused = new Set<C>();
  #timer: NodeJS.Timeout | undefined;
  /** BOOT_PAUSE_MAX_MS passed while the current warm runs go on: boots proceed until they end. */
  #expired = false;
  /** Holds the thaw of frozen, finished sandboxes back while boots are held (src/sandbox/freezer.ts). */
  #releaseThaws: (() => void) | undefined;

  /** `booting`: the pool's children still starting (none taken by a run). */
  constructor(booting: () => Iterable<C>) {
    this.#booting = booting;
  }

  /** A warm run started on `taken`: pauses the other children still booting; call the result when it settles. */
  begin(taken: C): () => void {
    this.#runs++;
    if (this.#runs === 1) {
      for (const child of this.#booting()) {
        if (child !== taken && child.pauseBoot()) this.#paused.add(child);
      }
      this.#releaseThaws = holdThaws();
      this.#timer = setTimeout(() => {
        this.#expired = true;
        this.#resumeAll();
      }, BOOT_PAUSE_MAX_MS);
      this.#timer.unref();
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#runs--;
      if (this.#runs === 0) {
        this.#expired = false;
        this.#resumeAll();
      }
    };
  }

  /** True while warm runs go on and BOOT_PAUSE_MAX_MS has not passed: new boots should wait too. */
  get holding(): boolean {
    return this.#runs > 0 && !this.#expired;
  }

  /** A run took `child`: if it was paused, it boots on now. */
  release(child: C): void {
    if (!this.#paused.delete(child)) return;
    child.resumeBoot();
  }

  #resumeAll(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#releaseThaws?.();
    this.#releaseThaws = undefined;
    for (const child of this.#paused) child.resumeBoot();
    this.#paused.clear();
  }
}
