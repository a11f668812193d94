// Options of createPythonRuntime: the shared process-runtime options (src/ptc-runtime-process/options.ts),
// so a program has the same budget in either language, plus the python3 to run.

import { ConfigError } from '../../../errors.js';
import { DEFAULT_MEMORY_IDLE_MS } from '../../../limits.js';
import {
  resolveProcessRuntimeOptions,
  type ProcessEvent,
  type ProcessRuntimeConfig,
  type ProcessRuntimeLimits,
  type ProcessRuntimeOptions,
} from '../../../ptc-runtime-process/options.js';

export { DEFAULT_MEMORY_IDLE_MS };

/** A process event, for diagnostics and tests (which pids belong to which run). */
export type PythonProcessEvent = ProcessEvent;

/** Limits of one run; each defaults to the constant of the same meaning in src/limits.ts (as for Node). */
export type PythonRuntimeLimits = ProcessRuntimeLimits;

export interface PythonRuntimeOptions extends ProcessRuntimeOptions {
  /** The python3 to run (default: `python3` on the host's PATH); 3.9 or newer. */
  readonly pythonPath?: string;
}

export interface PythonRuntimeConfig extends ProcessRuntimeConfig {
  readonly pythonPath: string;
}

export function resolvePythonRuntimeOptions(options: PythonRuntimeOptions = {}): PythonRuntimeConfig {
  const shared = resolveProcessRuntimeOptions(options, { factory: 'createPythonRuntime', extraKeys: ['pythonPath'], minTasks: 8 });
  const pythonPath = options.pythonPath ?? 'python3';
  if (typeof pythonPath !== 'string' || pythonPath === '' || pythonPath.includes('\0')) {
    throw new ConfigError('pythonPath must be a command name or an absolute path of python3.');
  }
  return Object.freeze({ ...shared, pythonPath });
}
