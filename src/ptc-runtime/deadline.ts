// A run's wall-time deadline. Nothing can hold or move it: a sub-call that waits for a person (an
// approval) spends the program's time like any other awaited call (docs/approvals.md, "Waits").

export class Deadline {
  #timer: NodeJS.Timeout | undefined;

  /** Calls `onExpire` once at `expiresAt` (epoch ms) unless cleared first. */
  constructor(expiresAt: number, onExpire: () => void) {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      onExpire();
    }, Math.max(0, expiresAt - Date.now()));
  }

  /** Ends the deadline without expiring (the run settled). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
