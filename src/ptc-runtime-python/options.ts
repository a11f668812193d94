// Options of createPythonRuntime and their validation. Every limit defaults to the constant the Node
// runtime uses (src/limits.ts), so a program has the same budget in either language; bad values are a
// ConfigError naming the option.

import { ConfigError } from '../errors.js';
import {
  DEFAULT_MEMORY_MB,
  DEFAULT_POOL_IDLE_MS,
  DEFAULT_POOL_SIZE,
  DEFAULT_TIMEOUT_MS,
  EXIT_DRAIN_GRACE_MS,
  MAX_FRAME_BYTES,
  MAX_OUTPUT_BYTES,
  MAX_PENDING_ARGS_BYTES,
  MAX_PENDING_CALLS,
  MAX_POOL_POLICIES,
  MAX_PROGRAM_BYTES,
  MAX_SANDBOX_TASKS,
  MAX_STDIO_CAPTURE_BYTES,
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
  RSS_HEADROOM_MB,
  RSS_WATCHDOG_INTERVAL_MS,
  SANDBOX_TMP_MAX_BYTES,
} from '../limits.js';
import { createTimeoutDescriptor } from '../ptc-runtime/timeout.js';
import type { ProgramExecution, SandboxMode, TimeoutDescriptor } from '../ptc-runtime/types.js';

/**
 * In `in-memory` execution, a kept process nobody ran a program in for this long is ended; the next
 * program of its conversation starts fresh and is told so (docs/python-runtime.md, "In-memory mode").
 */
export const DEFAULT_MEMORY_IDLE_MS = 10 * 60_000;

/** A process event, for diagnostics and tests (which pids belong to which run). */
export interface PythonProcessEvent {
  /** `spawn`: a child started (maybe ahead of time); `run`: it was given a program; `exit`: it is gone. */
  readonly type: 'spawn' | 'run' | 'exit';
  /** The spawned process (bwrap when sandboxed). */
  readonly pid: number;
  /** The python3 process running the program (differs from `pid` under bwrap); known from `run` on. */
  readonly programPid?: number;
}

/** Limits of one run; each defaults to the constant of the same meaning in src/limits.ts. */
export interface PythonRuntimeLimits {
  readonly maxOutputBytes?: number;
  readonly maxFrameBytes?: number;
  readonly maxPendingCalls?: number;
  readonly maxPendingArgsBytes?: number;
  readonly maxProgramBytes?: number;
  /** The memory budget in MiB (default DEFAULT_MEMORY_MB, as for Node programs). */
  readonly memoryMb?: number;
  /** Resident memory at which the watchdog kills the program (default memoryMb + RSS_HEADROOM_MB, as for Node). */
  readonly rssLimitMb?: number;
  readonly rssIntervalMs?: number;
  readonly maxTasks?: number;
  readonly tmpMaxBytes?: number;
}

export interface PythonRuntimeOptions {
  /** `required` | `auto` | `off` (docs/sandbox.md); default `auto`. */
  readonly sandbox?: SandboxMode;
  readonly timeout?: { readonly defaultMs?: number; readonly minMs?: number; readonly maxMs?: number };
  readonly limits?: PythonRuntimeLimits;
  /** Warm children kept per policy, or `false` to start every child on demand. */
  readonly pool?: { readonly size?: number; readonly idleMs?: number; readonly maxPolicies?: number } | false;
  /** May a program start child processes (confined by the same policy, killed with the run)? Default true. */
  readonly processes?: boolean;
  /** The python3 to run (default: `python3` on the host's PATH); 3.9 or newer. */
  readonly pythonPath?: string;
  /** `stateless` (default) or `in-memory` (docs/python-runtime.md). */
  readonly execution?: ProgramExecution;
  /** In-memory mode: a kept process idle this long is ended (default DEFAULT_MEMORY_IDLE_MS). */
  readonly memoryIdleMs?: number;
  readonly onProcess?: (event: PythonProcessEvent) => void;
}

export interface PythonRuntimeConfig {
  readonly sandbox: SandboxMode;
  readonly timeout: TimeoutDescriptor;
  readonly maxOutputBytes: number;
  readonly maxFrameBytes: number;
  readonly maxPendingCalls: number;
  readonly maxPendingArgsBytes: number;
  readonly maxProgramBytes: number;
  readonly memoryMb: number;
  readonly rssLimitMb: number;
  readonly rssIntervalMs: number;
  readonly maxTasks: number;
  readonly tmpMaxBytes: number;
  readonly pool: { readonly size: number; readonly idleMs: number; readonly maxPolicies: number } | false;
  readonly processes: boolean;
  readonly pythonPath: string;
  readonly execution: ProgramExecution;
  readonly memoryIdleMs: number;
  readonly maxStdioBytes: number;
  readonly exitDrainGraceMs: number;
  readonly onProcess: ((event: PythonProcessEvent) => void) | undefined;
}

const OPTION_KEYS = ['sandbox', 'timeout', 'limits', 'pool', 'processes', 'pythonPath', 'execution', 'memoryIdleMs', 'onProcess'];
const LIMIT_KEYS = [
  'maxOutputBytes',
  'maxFrameBytes',
  'maxPendingCalls',
  'maxPendingArgsBytes',
  'maxProgramBytes',
  'memoryMb',
  'rssLimitMb',
  'rssIntervalMs',
  'maxTasks',
  'tmpMaxBytes',
];

export function resolvePythonRuntimeOptions(options: PythonRuntimeOptions = {}): PythonRuntimeConfig {
  if (typeof options !== 'object' || options === null) throw new ConfigError('createPythonRuntime options must be an object.');
  knownKeys(options, OPTION_KEYS, 'options');
  const sandbox = options.sandbox ?? 'auto';
  if (sandbox !== 'required' && sandbox !== 'auto' && sandbox !== 'off') {
    throw new ConfigError(`sandbox must be "required", "auto" or "off", got ${JSON.stringify(sandbox)}.`);
  }
  const timeoutInput = options.timeout ?? {};
  knownKeys(timeoutInput, ['defaultMs', 'minMs', 'maxMs'], 'timeout');
  const timeout = createTimeoutDescriptor({
    defaultMs: timeoutInput.defaultMs ?? DEFAULT_TIMEOUT_MS,
    minMs: timeoutInput.minMs ?? MIN_TIMEOUT_MS,
    maxMs: timeoutInput.maxMs ?? MAX_TIMEOUT_MS,
  });

  const limits = options.limits ?? {};
  knownKeys(limits, LIMIT_KEYS, 'limits');
  const maxOutputBytes = integer(limits.maxOutputBytes, MAX_OUTPUT_BYTES, 'limits.maxOutputBytes', 1);
  const maxFrameBytes = integer(limits.maxFrameBytes, MAX_FRAME_BYTES, 'limits.maxFrameBytes', 1024);
  const maxPendingCalls = integer(limits.maxPendingCalls, MAX_PENDING_CALLS, 'limits.maxPendingCalls', 1);
  const maxPendingArgsBytes = integer(limits.maxPendingArgsBytes, MAX_PENDING_ARGS_BYTES, 'limits.maxPendingArgsBytes', 1);
  const maxProgramBytes = integer(limits.maxProgramBytes, MAX_PROGRAM_BYTES, 'limits.maxProgramBytes', 1);
  if (maxProgramBytes * 6 + 4096 > maxFrameBytes) {
    throw new ConfigError(`limits.maxFrameBytes (${maxFrameBytes}) must be at least 6 x limits.maxProgramBytes + 4096 so any program fits in a frame.`);
  }
  const memoryMb = integer(limits.memoryMb, DEFAULT_MEMORY_MB, 'limits.memoryMb', 16);
  const rssLimitMb = integer(limits.rssLimitMb, memoryMb + RSS_HEADROOM_MB, 'limits.rssLimitMb', 32);
  const rssIntervalMs = integer(limits.rssIntervalMs, RSS_WATCHDOG_INTERVAL_MS, 'limits.rssIntervalMs', 1);
  const maxTasks = integer(limits.maxTasks, MAX_SANDBOX_TASKS, 'limits.maxTasks', 8);
  const tmpMaxBytes = integer(limits.tmpMaxBytes, SANDBOX_TMP_MAX_BYTES, 'limits.tmpMaxBytes', 1024 * 1024);

  let pool: PythonRuntimeConfig['pool'] = false;
  if (options.pool !== false) {
    const input = options.pool ?? {};
    if (typeof input !== 'object' || input === null) throw new ConfigError('pool must be an object or false.');
    knownKeys(input, ['size', 'idleMs', 'maxPolicies'], 'pool');
    const size = integer(input.size, DEFAULT_POOL_SIZE, 'pool.size', 0);
    const idleMs = integer(input.idleMs, DEFAULT_POOL_IDLE_MS, 'pool.idleMs', 0);
    const maxPolicies = integer(input.maxPolicies, MAX_POOL_POLICIES, 'pool.maxPolicies', 1);
    pool = size === 0 ? false : { size, idleMs, maxPolicies };
  }

  const processes = options.processes ?? true;
  if (typeof processes !== 'boolean') throw new ConfigError('processes must be a boolean.');
  const pythonPath = options.pythonPath ?? 'python3';
  if (typeof pythonPath !== 'string' || pythonPath === '' || pythonPath.includes('\0')) {
    throw new ConfigError('pythonPath must be a command name or an absolute path of python3.');
  }
  const execution = options.execution ?? 'stateless';
  if (execution !== 'stateless' && execution !== 'in-memory') {
    throw new ConfigError(`execution must be "stateless" or "in-memory", got ${JSON.stringify(execution)}.`);
  }
  const memoryIdleMs = integer(options.memoryIdleMs, DEFAULT_MEMORY_IDLE_MS, 'memoryIdleMs', 1);
  if (options.onProcess !== undefined && typeof options.onProcess !== 'function') throw new ConfigError('onProcess must be a function.');

  return Object.freeze({
    sandbox,
    timeout,
    maxOutputBytes,
    maxFrameBytes,
    maxPendingCalls,
    maxPendingArgsBytes,
    maxProgramBytes,
    memoryMb,
    rssLimitMb,
    rssIntervalMs,
    maxTasks,
    tmpMaxBytes,
    pool,
    processes,
    pythonPath,
    execution,
    memoryIdleMs,
    maxStdioBytes: MAX_STDIO_CAPTURE_BYTES,
    exitDrainGraceMs: EXIT_DRAIN_GRACE_MS,
    onProcess: options.onProcess,
  });
}

function knownKeys(value: object, known: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new ConfigError(`${field} has an unknown field "${key}" (known: ${known.join(', ')}).`);
  }
}

function integer(value: unknown, fallback: number, field: string, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`${field} must be an integer >= ${min}, got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}
