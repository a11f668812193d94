// The options both shells take (the one-shot `bash` and the minimal preset's persistent one), checked
// once in one place: the harness's policy, the sandbox mode, the default deadline and the stream bound.

import { ConfigError } from '../errors.js';
import {
  DEFAULT_BASH_MEMORY_MB,
  DEFAULT_BASH_TIMEOUT_MS,
  MAX_BASH_STREAM_BYTES,
  MAX_BASH_TIMEOUT_MS,
  MIN_BASH_MEMORY_MB,
  MIN_BASH_TIMEOUT_MS,
} from './shell-limits.js';
import { defaultSandboxEnv, sandboxPolicyOf, type SandboxMode, type SandboxPolicy, type WorkspacePolicy } from '../sandbox/index.js';

export interface BashToolOptions {
  /**
   * The harness's one policy (resolveWorkspacePolicy): commands run in `policy.cwd` and may read,
   * write and reach what a run_code program may.
   */
  readonly policy: WorkspacePolicy;
  /** The same mode as the runtime's (`--sandbox`). */
  readonly sandbox: SandboxMode;
  /** Deadline of a command when a call gives no `timeout_ms`; default {@link DEFAULT_BASH_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Bytes kept per stream per call; default {@link MAX_BASH_STREAM_BYTES}. */
  readonly maxStreamBytes?: number;
  /** Memory a command's whole process tree may hold, in MiB; default {@link DEFAULT_BASH_MEMORY_MB}. */
  readonly memoryLimitMb?: number;
}

/** The `timeout_ms` description of the one-shot bash, for its default deadline (its contract and bash.ts). */
export function bashTimeoutText(defaultTimeoutMs: number): string {
  return `Deadline in milliseconds (default ${defaultTimeoutMs}); the command and its processes are killed when it passes.`;
}

/** The `timeout_ms` description of the persistent bash, for its default deadline (its contract and persistent-bash.ts). */
export function persistentBashTimeoutText(defaultTimeoutMs: number): string {
  return (
    `Deadline in milliseconds (default ${defaultTimeoutMs}); when it passes, the command is killed with ` +
    'the shell and the next call starts a fresh shell.'
  );
}

/** The options after validation, with the process policy the shells launch under. */
export interface ResolvedBashOptions {
  readonly sandbox: SandboxMode;
  readonly defaultTimeoutMs: number;
  readonly maxStreamBytes: number;
  readonly memoryLimitMb: number;
  readonly sandboxPolicy: SandboxPolicy;
  /** The same with the workspace read-only (plan mode, docs/plan-mode.md). */
  readonly readOnlyPolicy: SandboxPolicy;
}

/** Validates the options (CONFIG naming the bad one) and derives the shells' process policy. */
export function resolveBashOptions(options: BashToolOptions): ResolvedBashOptions {
  const { policy } = options;
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const maxStreamBytes = options.maxStreamBytes ?? MAX_BASH_STREAM_BYTES;
  const memoryLimitMb = options.memoryLimitMb ?? DEFAULT_BASH_MEMORY_MB;
  if (!Number.isInteger(defaultTimeoutMs) || defaultTimeoutMs < MIN_BASH_TIMEOUT_MS || defaultTimeoutMs > MAX_BASH_TIMEOUT_MS) {
    throw new ConfigError(`bash timeoutMs must be an integer from ${MIN_BASH_TIMEOUT_MS} to ${MAX_BASH_TIMEOUT_MS}, got ${String(defaultTimeoutMs)}.`);
  }
  if (!Number.isInteger(maxStreamBytes) || maxStreamBytes < 2) {
    throw new ConfigError(`bash maxStreamBytes must be an integer of at least 2, got ${String(maxStreamBytes)}.`);
  }
  if (!Number.isInteger(memoryLimitMb) || memoryLimitMb < MIN_BASH_MEMORY_MB) {
    throw new ConfigError(`bash memoryLimitMb must be an integer of at least ${MIN_BASH_MEMORY_MB}, got ${String(memoryLimitMb)}.`);
  }
  if (!['required', 'auto', 'off'].includes(options.sandbox)) {
    throw new ConfigError(`bash sandbox must be "required", "auto" or "off", got ${JSON.stringify(options.sandbox)}.`);
  }
  if (typeof policy !== 'object' || policy === null || typeof policy.cwd !== 'string') {
    throw new ConfigError('bash needs a policy: pass resolveWorkspacePolicy({ cwd, ... }).');
  }
  // policy.cwd is real, so HOME names the directory the sandbox binds (it binds real paths only).
  const env = defaultSandboxEnv(policy.cwd);
  return {
    sandbox: options.sandbox,
    defaultTimeoutMs,
    maxStreamBytes,
    memoryLimitMb,
    sandboxPolicy: sandboxPolicyOf(policy, env),
    readOnlyPolicy: sandboxPolicyOf({ ...policy, readOnlyWorkspace: true }, env),
  };
}

/** The note both shells add when a stream lost bytes to its bound. */
export function truncationNote(maxStreamBytes: number): string {
  return (
    `Note: output was truncated to the first and last ${maxStreamBytes / 2} bytes of each stream; ` +
    'redirect it to a file and read the file in parts to see all of it.'
  );
}
