// Queue mode's packages (bullmq, and the ioredis it brings) are optional peer dependencies of
// ptc-harness (docs/eval.md, "Queue mode"): most users never start a worker, and bullmq's native
// speed-up has an install script npm warns about. A missing one is a CONFIG error with the command
// that installs it, not a module-resolution stack trace.

import { ConfigError } from '../../errors.js';

const QUEUE_PACKAGES = ['bullmq', 'ioredis'];

/** `load()` (a dynamic import of a queue module); a missing queue package becomes CONFIG naming the install. */
export async function loadQueueModule<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingQueuePackage(error);
    if (missing === undefined) throw error;
    throw new ConfigError(
      `Queue mode needs the ${missing} package, which ptc-harness does not install by default. ` +
        'Install it next to ptc-harness: `npm install bullmq@5` in the project (with a global install, `npm install --global bullmq@5`).',
      { cause: error },
    );
  }
}

/** The queue package Node could not find, from its module-resolution error; undefined for any other error. */
export function missingQueuePackage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = error instanceof Error ? error.message : '';
  return QUEUE_PACKAGES.find((name) => message.includes(`'${name}'`));
}
