// Waiting on Redis with a bound: a connection attempt, or a close while Redis is away (a BullMQ
// close waits for its connections, which wait for a Redis that may not come back).

/** Rejects with `message` when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** True when `promise` settled (either way) within `ms`; never rejects. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(promise, ms, 'timeout').then(
    () => true,
    (error: unknown) => !(error instanceof Error && error.message === 'timeout'),
  );
}
