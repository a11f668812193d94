// Waiting for an effect in another process (a file appears, a pid is gone): poll a condition, give up
// after a bound with a message naming what never happened. The bound is a failure, never a timing claim.

const WAIT_BOUND_MS = 15_000;
const POLL_MS = 20;

export async function waitUntil(what: string, condition: () => boolean, boundMs: number = WAIT_BOUND_MS): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting (${boundMs} ms) for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
