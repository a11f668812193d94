// The small helpers every file tool shares: filesystem errors turned into messages that say what to do
// next, abort checks between steps of a long walk, and the binary sniff.

import { AbortedError, HarnessError, ToolFailedError } from '../errors.js';
import { errnoCode } from './safe-fs.js';

/** Turns a filesystem error into a TOOL_FAILED error whose message says what to do next. */
export function describeFsError(error: unknown, shown: string, action: string): HarnessError {
  if (error instanceof HarnessError) return error;
  const code = errnoCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ENOENT':
      return new ToolFailedError(`Cannot ${action} ${shown}: it does not exist. Use glob to find the right path.`, {
        cause: error,
      });
    case 'ENOTDIR':
      return new ToolFailedError(
        `Cannot ${action} ${shown}: a parent of this path is a file, not a directory. Check the path with glob.`,
        { cause: error },
      );
    case 'EISDIR':
      return new ToolFailedError(`Cannot ${action} ${shown}: it is a directory. Use glob to list its files.`, {
        cause: error,
      });
    case 'EEXIST':
      return new ToolFailedError(
        `Cannot ${action} ${shown}: a file is in the way where a directory is needed. Check the path with glob.`,
        { cause: error },
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolFailedError(`Cannot ${action} ${shown}: the operating system denied access (${code}).`, {
        cause: error,
      });
    default:
      return new ToolFailedError(`Cannot ${action} ${shown}: ${detail}`, { cause: error });
  }
}

/** Throws ABORTED when the call was cancelled; long walks call this between steps. */
export function throwIfAborted(signal: AbortSignal, tool: string): void {
  if (signal.aborted) throw new AbortedError(`${tool} was aborted before it finished.`);
}

/** True when the bytes look binary: a NUL byte among them. Callers pass the first few KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.includes(0);
}
