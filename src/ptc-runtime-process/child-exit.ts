// How a child process ended, as the host reports it: the exit record a run session reads, bwrap's
// "128 + signal" exit codes decoded where the sandbox made them truthful (docs/sandbox.md, "Memory"),
// and the wording of an exit in messages.

import { signalName } from '../sandbox/index.js';

export interface ChildExit {
  /** The exit code the program's process chose; null when a signal ended it. */
  readonly code: number | null;
  /**
   * The signal that ended the program's process. Truthful under bwrap too: there the exit-status rule
   * of the seccomp filter makes 128 + N mean signal N (docs/sandbox.md, "Memory"), and it is decoded.
   */
  readonly signal: NodeJS.Signals | null;
  /** The tail of the child's real stderr (crash reports, an interpreter's out-of-memory message). */
  readonly stderr: string;
  /** The largest resident size the watchdog saw, in bytes (0 when never sampled). */
  readonly peakResidentBytes: number;
}

/** bwrap's 128 + N, trusted only when the plan made it truthful (LaunchPlan.signalExitCodes). */
export function decodeSignalExit(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const name = signalName(code - 128);
  return name === undefined ? { code, signal } : { code: null, signal: name };
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `killed by ${signal}` : `exit code ${String(code)}`;
}

/** The last lines of stderr for a message, or ''. */
export function tailNote(stderr: string): string {
  const tail = stderr.trim().split('\n').slice(-5).join('\n').slice(-600);
  return tail === '' ? '' : `: ${tail}`;
}

/** "the program's process ended before the program returned (...)" with stderr's last lines. */
export function endedEarlyMessage(exit: ChildExit): string {
  const tail = exit.stderr.trim().split('\n').slice(-3).join(' | ').slice(-400);
  return `the program's process ended before the program returned (${describeExit(exit.code, exit.signal)})${tail === '' ? '' : `: ${tail}`}`;
}
