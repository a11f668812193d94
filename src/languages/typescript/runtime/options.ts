// Options of createNodeRuntime: the shared process-runtime options (src/ptc-runtime-process/options.ts)
// plus the Node binary and phase tracing. Bad values are a ConfigError naming the option.

import { ConfigError } from '../../../errors.js';
import {
  resolveProcessRuntimeOptions,
  type ProcessEvent,
  type ProcessPoolOptions,
  type ProcessRuntimeConfig,
  type ProcessRuntimeLimits,
  type ProcessRuntimeOptions,
} from '../../../ptc-runtime-process/options.js';
import { phaseSinkOf, type PhaseTrace } from './trace.js';

/** Limits of one run; each defaults to the constant of the same meaning in src/limits.ts. */
export type NodeRuntimeLimits = ProcessRuntimeLimits;

export type NodeRuntimePoolOptions = ProcessPoolOptions;

export interface NodeRuntimeOptions extends ProcessRuntimeOptions {
  /** The Node binary children run (default: the host's own, process.execPath). */
  readonly nodePath?: string;
  /**
   * Receives the phase timestamps of each child that ran a program, once it is cleaned up
   * (docs/runtime-lifecycle.md, "Tracing"). Without it, PTC_TRACE=phases in the environment prints
   * them on stderr; with neither, nothing is recorded.
   */
  readonly onPhases?: (trace: PhaseTrace) => void;
  readonly onProcess?: (event: ProcessEvent) => void;
}

/** Options after validation, every default filled in. */
export interface NodeRuntimeConfig extends ProcessRuntimeConfig {
  readonly nodePath: string;
  readonly onPhases: ((trace: PhaseTrace) => void) | undefined;
}

export function resolveNodeRuntimeOptions(options: NodeRuntimeOptions = {}): NodeRuntimeConfig {
  // An idle Node program already has about a dozen tasks (threads count).
  const shared = resolveProcessRuntimeOptions(options, { factory: 'createNodeRuntime', extraKeys: ['nodePath', 'onPhases'], minTasks: 32 });
  const nodePath = options.nodePath ?? process.execPath;
  if (typeof nodePath !== 'string' || !nodePath.startsWith('/')) throw new ConfigError('nodePath must be an absolute path.');
  if (options.onPhases !== undefined && typeof options.onPhases !== 'function') throw new ConfigError('onPhases must be a function.');
  return Object.freeze({ ...shared, nodePath, onPhases: phaseSinkOf(options.onPhases) });
}
