// The options every process runtime shares (sandbox, deadline, limits, pool, processes, execution
// mode) and their validation. Every limit defaults to its named constant in src/limits.ts, so a
// program has the same budget in any language; bad values are a ConfigError naming the option. A
// language provider adds its own few options (the interpreter's path) on top.

import { ConfigError } from '../errors.js';
import {
  DEFAULT_MEMORY_IDLE_MS,
  DEFAULT_MEMORY_MB,
  DEFAULT_POOL_IDLE_MS,
  DEFAULT_POOL_MAX_SIZE,
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

/** A process event, for diagnostics and tests (which pids belong to which run). */
export interface ProcessEvent {
  /** `spawn`: a child started (maybe ahead of time); `run`: it was given a program; `exit`: it is gone. */
  readonly type: 'spawn' | 'run' | 'exit';
  /** The spawned process (bwrap when sandboxed; its process group is killed at settlement). */
  readonly pid: number;
  /** The interpreter process running the program (differs from `pid` under bwrap); known from `run` on. */
  readonly programPid?: number;
}

/** Limits of one run; each defaults to the constant of the same meaning in src/limits.ts. */
export interface ProcessRuntimeLimits {
  /** Output ledger: UTF-8 bytes of all logs plus the returned value's JSON (default MAX_OUTPUT_BYTES). */
  readonly maxOutputBytes?: number;
  /** One control frame in bytes (default MAX_FRAME_BYTES). */
  readonly maxFrameBytes?: number;
  /** Binding calls in flight; more wait in the child (default MAX_PENDING_CALLS). */
  readonly maxPendingCalls?: number;
  /** Argument bytes of the binding calls in flight (default MAX_PENDING_ARGS_BYTES). */
  readonly maxPendingArgsBytes?: number;
  /** Program text in bytes; larger programs are rejected by resolve() (default MAX_PROGRAM_BYTES). */
  readonly maxProgramBytes?: number;
  /** The memory budget in MiB (default DEFAULT_MEMORY_MB); Node also sets it as `--max-old-space-size`. */
  readonly memoryMb?: number;
  /**
   * The memory limit of the program's whole process tree in MiB (default memoryMb + RSS_HEADROOM_MB):
   * a memory group under bwrap where one can be made, else the watchdog's sum of the tree's resident
   * size (docs/sandbox.md, "Memory").
   */
  readonly rssLimitMb?: number;
  /** Watchdog sampling interval (default RSS_WATCHDOG_INTERVAL_MS). */
  readonly rssIntervalMs?: number;
  /** Tasks (processes and threads) alive at once in a bwrap sandbox, where a pids group can be made (default MAX_SANDBOX_TASKS). */
  readonly maxTasks?: number;
  /** Size of bwrap's private /tmp, the program's TMPDIR there, in bytes (default SANDBOX_TMP_MAX_BYTES). */
  readonly tmpMaxBytes?: number;
}

export interface ProcessPoolOptions {
  /** Warm children kept per policy (default DEFAULT_POOL_SIZE; 0 disables the pool). */
  readonly size?: number;
  /**
   * Children the pool may grow to for one policy while programs run back to back (default
   * DEFAULT_POOL_MAX_SIZE, never below `size`; docs/runtime-lifecycle.md, "The pool").
   */
  readonly maxSize?: number;
  /** A warm child unused this long is ended (default DEFAULT_POOL_IDLE_MS). */
  readonly idleMs?: number;
  /** Policies (cwd plus widenings) the pool keeps children for at once (default MAX_POOL_POLICIES). */
  readonly maxPolicies?: number;
  /**
   * Replace a child once a run took it (default true). `false` with `size: 1` starts exactly one
   * child per program for a one-shot caller such as `ptc exec` (docs/runtime-lifecycle.md, "The pool").
   */
  readonly refill?: boolean;
}

/** The options of every process runtime; a provider adds its own. */
export interface ProcessRuntimeOptions {
  /** `required` | `auto` | `off` (docs/sandbox.md); default `auto`. */
  readonly sandbox?: SandboxMode;
  /** The advertised deadline bounds; defaults DEFAULT_TIMEOUT_MS, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS. */
  readonly timeout?: { readonly defaultMs?: number; readonly minMs?: number; readonly maxMs?: number };
  readonly limits?: ProcessRuntimeLimits;
  /** Warm pool settings, or `false` to start every child on demand. */
  readonly pool?: ProcessPoolOptions | false;
  /** May a program start child processes (confined by the same policy, killed with the run)? Default true. */
  readonly processes?: boolean;
  /** `stateless` (default) or `in-memory` (docs/in-memory-mode.md). */
  readonly execution?: ProgramExecution;
  /** In-memory mode: a kept process idle this long is ended (default DEFAULT_MEMORY_IDLE_MS). */
  readonly memoryIdleMs?: number;
  /** Observes child processes: which pid ran which program, and when it exited. For diagnostics and tests. */
  readonly onProcess?: (event: ProcessEvent) => void;
}

/** Options after validation, every default filled in. */
export interface ProcessRuntimeConfig {
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
  readonly pool:
    | { readonly size: number; readonly maxSize: number; readonly idleMs: number; readonly maxPolicies: number; readonly refill: boolean }
    | false;
  readonly processes: boolean;
  readonly execution: ProgramExecution;
  readonly memoryIdleMs: number;
  readonly maxStdioBytes: number;
  readonly exitDrainGraceMs: number;
  readonly onProcess: ((event: ProcessEvent) => void) | undefined;
}

/** What differs between providers in validation. */
export interface OptionRules {
  /** The factory's name, for the one message about a non-object (`createNodeRuntime`). */
  readonly factory: string;
  /** The provider's own option names, allowed beside the shared ones. */
  readonly extraKeys: readonly string[];
  /** The smallest `limits.maxTasks` a program of this interpreter can start with. */
  readonly minTasks: number;
}

const SHARED_KEYS = ['sandbox', 'timeout', 'limits', 'pool', 'processes', 'execution', 'memoryIdleMs', 'onProcess'];
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

/** Validates the shared options; the provider's own keys pass through for it to check. */
export function resolveProcessRuntimeOptions(options: ProcessRuntimeOptions, rules: OptionRules): ProcessRuntimeConfig {
  if (typeof options !== 'object' || options === null) throw new ConfigError(`${rules.factory} options must be an object.`);
  knownKeys(options, [...SHARED_KEYS.slice(0, 5), ...rules.extraKeys, ...SHARED_KEYS.slice(5)], 'options');
  const sandbox = options.sandbox ?? 'auto';
  if (sandbox !== 'required' && sandbox !== 'auto' && sandbox !== 'off') {
    throw new ConfigError(`sandbox must be "required", "auto" or "off", got ${JSON.stringify(sandbox)}.`);
  }
  const timeoutInput = options.timeout ?? {};
  knownKeys(timeoutInput, ['defaultMs', 'minMs', 'maxMs'], 'timeout');
  const timeout = createTimeoutDescriptor(
    {
      defaultMs: timeoutInput.defaultMs ?? DEFAULT_TIMEOUT_MS,
      minMs: timeoutInput.minMs ?? MIN_TIMEOUT_MS,
      maxMs: timeoutInput.maxMs ?? MAX_TIMEOUT_MS,
    },
    'timeout',
  );

  const limits = options.limits ?? {};
  knownKeys(limits, LIMIT_KEYS, 'limits');
  const maxOutputBytes = integer(limits.maxOutputBytes, MAX_OUTPUT_BYTES, 'limits.maxOutputBytes', 1);
  const maxFrameBytes = integer(limits.maxFrameBytes, MAX_FRAME_BYTES, 'limits.maxFrameBytes', 1024);
  const maxPendingCalls = integer(limits.maxPendingCalls, MAX_PENDING_CALLS, 'limits.maxPendingCalls', 1);
  const maxPendingArgsBytes = integer(limits.maxPendingArgsBytes, MAX_PENDING_ARGS_BYTES, 'limits.maxPendingArgsBytes', 1);
  const maxProgramBytes = integer(limits.maxProgramBytes, MAX_PROGRAM_BYTES, 'limits.maxProgramBytes', 1);
  // The run frame carries the whole program (JSON may escape each byte into up to 6).
  if (maxProgramBytes * 6 + 4096 > maxFrameBytes) {
    throw new ConfigError(`limits.maxFrameBytes (${maxFrameBytes}) must be at least 6 x limits.maxProgramBytes + 4096 so any program fits in a frame.`);
  }
  const memoryMb = integer(limits.memoryMb, DEFAULT_MEMORY_MB, 'limits.memoryMb', 16);
  const rssLimitMb = integer(limits.rssLimitMb, memoryMb + RSS_HEADROOM_MB, 'limits.rssLimitMb', 32);
  const rssIntervalMs = integer(limits.rssIntervalMs, RSS_WATCHDOG_INTERVAL_MS, 'limits.rssIntervalMs', 1);
  const maxTasks = integer(limits.maxTasks, MAX_SANDBOX_TASKS, 'limits.maxTasks', rules.minTasks);
  const tmpMaxBytes = integer(limits.tmpMaxBytes, SANDBOX_TMP_MAX_BYTES, 'limits.tmpMaxBytes', 1024 * 1024);

  let pool: ProcessRuntimeConfig['pool'] = false;
  if (options.pool !== false) {
    const input = options.pool ?? {};
    if (typeof input !== 'object' || input === null) throw new ConfigError('pool must be an object or false.');
    knownKeys(input, ['size', 'maxSize', 'idleMs', 'maxPolicies', 'refill'], 'pool');
    const size = integer(input.size, DEFAULT_POOL_SIZE, 'pool.size', 0);
    const maxSize = Math.max(size, integer(input.maxSize, DEFAULT_POOL_MAX_SIZE, 'pool.maxSize', 1));
    const idleMs = integer(input.idleMs, DEFAULT_POOL_IDLE_MS, 'pool.idleMs', 0);
    const maxPolicies = integer(input.maxPolicies, MAX_POOL_POLICIES, 'pool.maxPolicies', 1);
    const refill = input.refill ?? true;
    if (typeof refill !== 'boolean') throw new ConfigError('pool.refill must be a boolean.');
    pool = size === 0 ? false : { size, maxSize, idleMs, maxPolicies, refill };
  }

  const processes = options.processes ?? true;
  if (typeof processes !== 'boolean') throw new ConfigError('processes must be a boolean.');
  const execution = options.execution ?? 'stateless';
  if (execution !== 'stateless' && execution !== 'in-memory') {
    throw new ConfigError(`execution must be "stateless" or "in-memory", got ${JSON.stringify(execution)}.`);
  }
  const memoryIdleMs = integer(options.memoryIdleMs, DEFAULT_MEMORY_IDLE_MS, 'memoryIdleMs', 1);
  if (options.onProcess !== undefined && typeof options.onProcess !== 'function') throw new ConfigError('onProcess must be a function.');

  return {
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
    execution,
    memoryIdleMs,
    maxStdioBytes: MAX_STDIO_CAPTURE_BYTES,
    exitDrainGraceMs: EXIT_DRAIN_GRACE_MS,
    onProcess: options.onProcess,
  };
}

function knownKeys(value: object, known: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new ConfigError(`${field} has an unknown field "${key}" (known: ${known.join(', ')}).`);
  }
}

/** `value` as an integer of at least `min`, or `fallback` when it is undefined. */
export function integer(value: unknown, fallback: number, field: string, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`${field} must be an integer >= ${min}, got ${JSON.stringify(value) ?? String(value)}.`);
  }
  return value;
}
