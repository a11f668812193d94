// A run's wall-time deadline that can be held: while a binding call waits for a person (an approval,
// docs/approvals.md), the program's time does not run. Holds nest; the deadline moves by the time
// spent with at least one hold open.

export class Deadline {
  #timer: NodeJS.Timeout | undefined;
  #expiresAt: number;
  readonly #onExpire: () => void;
  #holds = 0;
  #heldSince = 0;
  #done = false;

  /** Calls `onExpire` once at `expiresAt` (epoch ms), later by the time spent held. */
  constructor(expiresAt: number, onExpire: () => void) {
    this.#expiresAt = expiresAt;
    this.#onExpire = onExpire;
    this.#arm();
  }

  /** Stops the clock until the returned release is called (each release counts once). */
  hold(): () => void {
    if (this.#done) return () => {};
    if (this.#holds++ === 0) {
      this.#heldSince = Date.now();
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    let released = false;
    return () => {
      if (released || this.#done) return;
      released = true;
      if (--this.#holds === 0) {
        this.#expiresAt += Date.now() - this.#heldSince;
        this.#arm();
      }
    };
  }

  /** Ends the deadline without expiring (the run settled). */
  clear(): void {
    this.#done = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#done = true;
      this.#onExpire();
    }, Math.max(0, this.#expiresAt - Date.now()));
  }
}
