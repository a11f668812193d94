// The frame both network tools (web_fetch, web_search) put around a request (docs/web-tools.md):
// no request without the session's network permission, and one abort signal for the caller's
// abort and the tool's own deadline, so the error can say which of the two ended the call.

import { AbortedError, PermissionDeniedError } from '../errors.js';
import type { ToolExecContext } from '../tools/types.js';

export interface NetworkCallEnd {
  /** The caller aborted the call. */
  readonly aborted: boolean;
  /** The tool's deadline passed. */
  readonly timedOut: boolean;
}

/**
 * Runs `request` with a signal that aborts on the caller's abort or after `timeoutMs`. A failure
 * goes to `fail` with how the call ended, which returns the error to throw (or undefined to throw
 * the original); the timer and the listener are released either way.
 */
export async function networkCall<T>(
  tool: string,
  network: boolean,
  exec: ToolExecContext,
  timeoutMs: number,
  request: (signal: AbortSignal) => Promise<T>,
  fail: (error: unknown, end: NetworkCallEnd) => Error | undefined,
): Promise<T> {
  if (!network) {
    throw new PermissionDeniedError(
      `Permission denied: ${tool} needs network access, which this session's policy does not allow. ` +
        `Ask the user to re-run with --allow-net to let tools reach the network.`,
    );
  }
  if (exec.signal.aborted) throw new AbortedError(`${tool} was aborted before it started.`);
  const controller = new AbortController();
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort();
  exec.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await request(controller.signal);
  } catch (error) {
    throw fail(error, { aborted: exec.signal.aborted, timedOut }) ?? error;
  } finally {
    clearTimeout(deadline);
    exec.signal.removeEventListener('abort', onAbort);
  }
}
