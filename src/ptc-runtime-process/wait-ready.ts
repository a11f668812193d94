// Waiting for a child's `ready`, bounded by the run's deadline, its abort signal and the runtime
// closing: the part of a run before its session starts.

import { HarnessError, type ErrorInfo } from '../errors.js';
import type { ResolvedRunSpec } from '../ptc-runtime/types.js';
import type { ProcessChild } from './process-child.js';

/** Undefined once the child is ready, else the run's error. `notStarted` names the process in a TIMEOUT. */
export function waitReady(
  child: ProcessChild,
  deadlineAt: number,
  spec: ResolvedRunSpec,
  closeSignal: AbortSignal,
  notStarted: string,
): Promise<ErrorInfo | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: ErrorInfo | undefined) => {
      if (timer !== undefined) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      closeSignal.removeEventListener('abort', onClose);
      resolve(error);
    };
    const onAbort = () => finish({ code: 'ABORTED', message: 'the run was aborted' });
    const onClose = () => finish({ code: 'ABORTED', message: 'the runtime was closed' });
    timer = setTimeout(
      () => finish({ code: 'TIMEOUT', message: `${notStarted} did not start within the ${spec.timeoutMs} ms deadline` }),
      Math.max(0, deadlineAt - Date.now()),
    );
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    closeSignal.addEventListener('abort', onClose, { once: true });
    child.ready.then(
      () => finish(undefined),
      (error: unknown) =>
        finish(
          error instanceof HarnessError
            ? error.toInfo()
            : { code: 'RUNTIME_UNAVAILABLE', message: error instanceof Error ? error.message : String(error) },
        ),
    );
  });
}
