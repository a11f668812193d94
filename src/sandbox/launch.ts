// launch(): the one way the project starts a confined process (docs/sandbox-launch.md). It plans the
// launch (backend and arguments from the policy, planLaunch), spawns it with the caller's stdio and
// limits, and always releases what the plan opened. The runtimes' children, the bash tool and the
// persistent bash all start here, so every process obeys one policy the same way.

import type { ChildProcess } from 'node:child_process';
import type { ConfinedProcess, SpawnConfinedOptions } from './confined-process.js';
import { planLaunch, selectBackend } from './plan-launch.js';
import { clearCachedProbe } from './probe-cache.js';
import { launchConfined, spawnConfined } from './spawn-confined.js';
import type { SpawnedProcess } from './spawned-process.js';
import type { LaunchPlan, LaunchRequest, SandboxBackendName, SandboxEnforcement, SandboxMode, SandboxPolicy } from './types.js';

/** What to run. */
export interface LaunchCommand {
  /**
   * `node`: the command is the Node binary, so the node-permission fallback can add its flags.
   * `exec`: any other command (bash, python3); only an OS backend can confine it.
   */
  readonly kind: 'node' | 'exec';
  /** The executable (a name looked up on the policy's PATH, or an absolute path). */
  readonly command: string;
  readonly args: readonly string[];
  /** Host paths the command itself must read, bound read-only (see LaunchRequest.runtimeReadPaths). */
  readonly runtimeReadPaths?: readonly string[];
}

/** One of fd 0, 1, 2 (and further fds of the caller's own) as child_process.spawn takes it. */
export type LaunchStdioEntry = 'pipe' | 'ignore' | 'inherit';

/**
 * A runtime's child: stdin fed with `stdin` (then ended), stdout discarded, stderr (`child.stdio[2]`)
 * and the control channel on fd 3 (`child.stdio[3]`) as streams, paused until the caller resumes
 * them. Under bwrap the spawner starts it when it is up (docs/sandbox.md, "The spawner"), and the
 * launch gets a freezer group where one can be made (ConfinedProcess.end()).
 */
export interface ProgramStdio {
  readonly program: { readonly stdin: string };
}

/** The caller's fds in order (the plan's own fds follow them), or a runtime's program stdio. */
export type LaunchStdio = readonly LaunchStdioEntry[] | ProgramStdio;

/** Resource limits of the whole launched tree. */
export interface LaunchLimits {
  /**
   * Tasks (processes and threads) alive at once, under bwrap, where a pids group can be made
   * (default MAX_SANDBOX_TASKS; `false` for no group).
   */
  readonly maxTasks?: number | false;
  /** A memory group limited to this many bytes, under bwrap where one can be made (docs/sandbox.md, "Memory"). */
  readonly memoryLimitBytes?: number;
  /** Size of bwrap's private /tmp in bytes (default SANDBOX_TMP_MAX_BYTES); ignored by other backends. */
  readonly tmpMaxBytes?: number;
}

/** The backend a launch got and what it enforces. */
export interface LaunchReport {
  readonly backend: SandboxBackendName;
  readonly enforced: SandboxEnforcement;
}

export interface LaunchOptions<S extends LaunchStdio = LaunchStdio> {
  readonly command: LaunchCommand;
  /**
   * The full policy, or a function of the backend the mode selects (a runtime's child makes a host
   * temp dir only where the backend has no private /tmp of its own).
   */
  readonly policy: SandboxPolicy | ((backend: SandboxBackendName) => SandboxPolicy);
  readonly mode: SandboxMode;
  readonly stdio: S;
  readonly limits?: LaunchLimits;
  /** See LaunchRequest.truthfulExit (a runtime's child asks for it). */
  readonly truthfulExit?: boolean;
  /** See LaunchRequest.denyUserNamespaces (the persistent bash asks for it). */
  readonly denyUserNamespaces?: boolean;
  /**
   * Where the backend has no pid namespace (every backend but bwrap), sample descendants from /proc
   * this often while the process runs, so a kill reaches the setsid orphans nothing else would find.
   */
  readonly sampleDescendantsMs?: number;
  /**
   * Called once the launch is planned, right before the spawn. Whatever it throws cancels the launch
   * (the plan is released, nothing is spawned) and rejects launch() with it: a caller aborted or
   * ended while the plan was made stops here.
   */
  readonly beforeSpawn?: (report: LaunchReport) => void;
}

/** The process a program stdio launch gives: through the spawner it is not a ChildProcess. */
export type LaunchedChild<S extends LaunchStdio> = S extends ProgramStdio ? ChildProcess | SpawnedProcess : ChildProcess;

export interface Launched<S extends LaunchStdio = LaunchStdio> {
  readonly process: ConfinedProcess<LaunchedChild<S>>;
  readonly report: LaunchReport;
  /** The executable actually spawned (bwrap's path under bwrap), for messages. */
  readonly spawned: string;
  /** True when an exit code of 128 + N can only mean a kill by signal N (LaunchPlan.signalExitCodes). */
  readonly signalExitCodes: boolean;
}

/**
 * Plans and starts one confined process. Rejects like planLaunch (SANDBOX_UNAVAILABLE under
 * `required` without bwrap; CONFIG for a bad policy), with what `beforeSpawn` throws, or with what
 * child_process.spawn throws synchronously; a spawn that fails later (ENOENT) is an `error` event
 * on the process, as with child_process.
 */
export async function launch<S extends LaunchStdio>(options: LaunchOptions<S>): Promise<Launched<S>> {
  const plan = await planFor(options);
  const report: LaunchReport = { backend: plan.backend, enforced: plan.enforced };
  try {
    options.beforeSpawn?.(report);
  } catch (error) {
    plan.release();
    throw error;
  }
  const limits = options.limits ?? {};
  const spawnOptions = {
    ...(limits.maxTasks === undefined ? {} : { maxTasks: limits.maxTasks }),
    ...(limits.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: limits.memoryLimitBytes }),
  };
  const stdio: LaunchStdio = options.stdio;
  let confined: ConfinedProcess<ChildProcess | SpawnedProcess>;
  if (isProgramStdio(stdio)) {
    confined = await launchConfined(plan, { stdin: stdio.program.stdin, ...spawnOptions });
  } else {
    const sample = plan.backend !== 'bwrap' && options.sampleDescendantsMs !== undefined;
    const spawn: SpawnConfinedOptions = { stdio, ...spawnOptions, ...(sample ? { sampleDescendantsMs: options.sampleDescendantsMs } : {}) };
    confined = spawnConfined(plan, spawn);
  }
  return { process: confined as ConfinedProcess<LaunchedChild<S>>, report, spawned: plan.command, signalExitCodes: plan.signalExitCodes };
}

/**
 * The backend and enforcement a launch of `command` under `policy` would get, without starting
 * anything (for a result produced before any process was involved). Rejects like launch().
 */
export async function launchReport(options: Pick<LaunchOptions, 'command' | 'policy' | 'mode'>): Promise<LaunchReport> {
  const plan = await planFor({ ...options, stdio: [] });
  plan.release();
  return { backend: plan.backend, enforced: plan.enforced };
}

/**
 * A launched process exited before it could be used, with `stderr` its tail: when bwrap itself
 * refused to start (it prefixes its errors), a remembered probe success is stale and is forgotten, so
 * the next process probes again (docs/sandbox.md).
 */
export function reportStartFailure(report: LaunchReport, stderr: string): void {
  if (report.backend === 'bwrap' && stderr.includes('bwrap:')) clearCachedProbe();
}

async function planFor(options: LaunchOptions): Promise<LaunchPlan> {
  return planLaunch(await requestOf(options));
}

function requestOf(options: LaunchOptions): LaunchRequest | Promise<LaunchRequest> {
  const { command, mode, limits } = options;
  const build = (policy: SandboxPolicy): LaunchRequest => ({
    kind: command.kind,
    command: command.command,
    args: command.args,
    policy,
    mode,
    // The plan's own fds follow the caller's: fd 0-2 plus, for a program, the channel on fd 3.
    firstFreeFd: isProgramStdio(options.stdio) ? 4 : Math.max(3, options.stdio.length),
    ...(command.runtimeReadPaths === undefined ? {} : { runtimeReadPaths: command.runtimeReadPaths }),
    ...(limits?.tmpMaxBytes === undefined ? {} : { tmpMaxBytes: limits.tmpMaxBytes }),
    ...(options.truthfulExit === undefined ? {} : { truthfulExit: options.truthfulExit }),
    ...(options.denyUserNamespaces === undefined ? {} : { denyUserNamespaces: options.denyUserNamespaces }),
    // A command with the caller's stdio runs as soon as bwrap starts it: hold it until its groups do.
    ...(isProgramStdio(options.stdio) ? {} : { gated: true }),
  });
  const policy = options.policy;
  if (typeof policy !== 'function') return build(policy);
  return selectBackend(mode, command.kind).then((backend) => build(policy(backend)));
}

function isProgramStdio(stdio: LaunchStdio): stdio is ProgramStdio {
  return !Array.isArray(stdio);
}
