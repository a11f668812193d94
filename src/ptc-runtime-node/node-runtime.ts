// createNodeRuntime: the Node process provider of the ptc-runtime seam. resolve() validates caller
// input (and warms a child for the policy); run() strips the program on the host, takes a warm
// sandboxed child (or starts one), and hands both to a run session. run() never rejects for a failed
// program: every failure is a coded error field of the result.

import { ConfigError, HarnessError, type ErrorInfo } from '../errors.js';
import { resolveRunRequest } from '../ptc-runtime/resolve-request.js';
import type { PtcRuntime, ResolvedRunSpec, RunRequest, RunResult, SandboxReport } from '../ptc-runtime/types.js';
import { resolveNodeRuntimeOptions, type NodeRuntimeConfig, type NodeRuntimeOptions } from './options.js';
import { ProgramChild, type ChildLaunchOptions } from './program-child.js';
import { runSession } from './run-session.js';
import { NONE_ENFORCEMENT, planLaunch, sandboxPolicyOf, sweepStaleRunState, type WorkspacePolicy } from '../sandbox/index.js';
import { BOOTSTRAP_INPUT_ARGS } from './bootstrap-source.js';
import { stripProgram } from './strip.js';
import { WarmPool } from './warm-pool.js';

/** Globals the runtime defines in every program; bindings cannot take these names. */
export const RUNTIME_GLOBALS: readonly string[] = ['console', 'require', 'process', 'Buffer'];

const NO_SANDBOX: SandboxReport = Object.freeze({ backend: 'none', enforced: NONE_ENFORCEMENT });

export interface NodeRuntime extends PtcRuntime {
  /** The validated options, every default filled in. */
  readonly config: NodeRuntimeConfig;
}

export function createNodeRuntime(options: NodeRuntimeOptions = {}): NodeRuntime {
  const config = resolveNodeRuntimeOptions(options);
  // Temp dirs and pids groups of hosts that died without cleaning up (once per process, in the background).
  void sweepStaleRunState();
  const pool = config.pool === false ? undefined : new WarmPool<ProgramChild>(config.pool);
  const resolvedSpecs = new WeakSet<ResolvedRunSpec>();
  const closing = new AbortController();
  const active = new Set<Promise<RunResult>>();
  let lastReport: SandboxReport | undefined;

  const launchOptions = (spec: ResolvedRunSpec): ChildLaunchOptions => ({
    mode: config.sandbox,
    nodePath: config.nodePath,
    memoryMb: config.memoryMb,
    processes: config.processes,
    maxFrameBytes: config.maxFrameBytes,
    maxStdioBytes: config.maxStdioBytes,
    exitDrainGraceMs: config.exitDrainGraceMs,
    policy: workspacePolicyOf(spec, config.processes),
    maxTasks: config.maxTasks,
    tmpMaxBytes: config.tmpMaxBytes,
    onProcess: config.onProcess,
    onPhases: config.onPhases,
  });
  // Every child until its cleanup is done: close() waits for that too, so nothing is left behind.
  const children = new Set<ProgramChild>();
  const starter = (spec: ResolvedRunSpec) => () => {
    const child = new ProgramChild(launchOptions(spec));
    children.add(child);
    void child.cleanedUp.then(() => children.delete(child));
    return child;
  };

  async function resolve(request: RunRequest): Promise<ResolvedRunSpec> {
    if (closing.signal.aborted) throw new ConfigError('The runtime is closed.');
    const spec = await resolveRunRequest(request, {
      timeout: config.timeout,
      reservedGlobals: RUNTIME_GLOBALS,
      maxProgramBytes: config.maxProgramBytes,
    });
    resolvedSpecs.add(spec);
    // A first run of this policy: its child starts now, while the caller is on its way to run().
    pool?.prime(policyKeyOf(spec), starter(spec));
    return spec;
  }

  /** The sandbox a run with `spec` gets, for results produced before any child was involved. */
  async function reportFor(spec: ResolvedRunSpec): Promise<SandboxReport> {
    if (lastReport !== undefined) return lastReport;
    try {
      const plan = await planLaunch({
        kind: 'node',
        command: config.nodePath,
        args: [...BOOTSTRAP_INPUT_ARGS],
        policy: sandboxPolicyOf(workspacePolicyOf(spec, config.processes), {}),
        mode: config.sandbox,
        firstFreeFd: 4,
      });
      plan.release();
      lastReport = { backend: plan.backend, enforced: plan.enforced };
      return lastReport;
    } catch {
      return NO_SANDBOX;
    }
  }

  async function execute(input: ResolvedRunSpec): Promise<RunResult> {
    const startedAt = Date.now();
    if (closing.signal.aborted) {
      return { logs: [], error: { code: 'RUNTIME_UNAVAILABLE', message: 'the runtime is closed' }, sandbox: lastReport ?? NO_SANDBOX };
    }
    const spec = resolvedSpecs.has(input) ? input : await resolve(respecify(input));
    const fail = async (error: ErrorInfo, sandbox?: SandboxReport): Promise<RunResult> => ({
      logs: [],
      error,
      sandbox: sandbox ?? (await reportFor(spec)),
    });
    if (spec.signal?.aborted) return fail({ code: 'ABORTED', message: 'the run was aborted' });

    const stripped = stripProgram(spec.program);
    if (!stripped.ok) return fail({ code: 'STRIP_FAILED', message: stripped.message });

    const start = starter(spec);
    const key = policyKeyOf(spec);
    const deadlineAt = startedAt + spec.timeoutMs;
    const taken = pool?.take(key, start) ?? start();
    taken.mark('take');
    const result = await runOn(taken, spec, stripped.code, deadlineAt, start, fail);
    // Refill once this run is over, so the new spawn does not compete with it (and not in a loop
    // when children cannot start at all). On the next turn of the event loop: spawning is
    // synchronous work that would otherwise run before the caller sees its result.
    const code = result.error?.code;
    if (pool !== undefined && pool.refills && code !== 'SANDBOX_UNAVAILABLE' && code !== 'RUNTIME_UNAVAILABLE') {
      setImmediate(() => {
        if (!closing.signal.aborted) pool.fill(key, start);
      });
    }
    return result;
  }

  async function runOn(
    taken: ProgramChild,
    spec: ResolvedRunSpec,
    code: string,
    deadlineAt: number,
    start: () => ProgramChild,
    fail: (error: ErrorInfo, sandbox?: SandboxReport) => Promise<RunResult>,
  ): Promise<RunResult> {
    let child = taken;
    let readyError = await waitReady(child, deadlineAt, spec, closing.signal);
    if (readyError === undefined && !child.usable) {
      // A warm child died while it waited (killed from outside): start a fresh one instead.
      void child.dispose();
      child = start();
      child.mark('take');
      readyError = await waitReady(child, deadlineAt, spec, closing.signal);
    }
    if (child.sandbox !== undefined) lastReport = child.sandbox;
    if (readyError !== undefined) {
      await child.dispose();
      child.mark('result');
      return fail(readyError, readyError.code === 'SANDBOX_UNAVAILABLE' ? NO_SANDBOX : child.sandbox);
    }
    const result = await runSession({
      child,
      sandbox: child.sandbox ?? NO_SANDBOX,
      spec,
      code,
      deadlineAt,
      closeSignal: closing.signal,
      trackDescendants: child.sandbox?.backend !== 'bwrap',
      limits: {
        maxOutputBytes: config.maxOutputBytes,
        maxFrameBytes: config.maxFrameBytes,
        maxPendingCalls: config.maxPendingCalls,
        maxPendingArgsBytes: config.maxPendingArgsBytes,
        rssLimitBytes: config.rssLimitMb * 1024 * 1024,
        rssIntervalMs: config.rssIntervalMs,
        memoryMb: config.memoryMb,
      },
    });
    child.mark('result');
    return result;
  }

  return {
    language: 'typescript',
    isolation: 'process',
    sandboxMode: config.sandbox,
    timeout: config.timeout,
    config,
    resolve,
    run(spec: ResolvedRunSpec): Promise<RunResult> {
      const running = execute(spec).catch(async (error: unknown): Promise<RunResult> => {
        // Caller misuse rejects; anything else is our own fault and still only fails this run.
        if (error instanceof ConfigError) throw error;
        return {
          logs: [],
          error: { code: 'RUNTIME_UNAVAILABLE', message: `the Node runtime failed: ${error instanceof Error ? error.message : String(error)}` },
          sandbox: lastReport ?? NO_SANDBOX,
        };
      });
      active.add(running);
      const forget = () => active.delete(running);
      running.then(forget, forget);
      return running;
    },
    async close(): Promise<void> {
      closing.abort();
      await pool?.close();
      await Promise.allSettled([...active]);
      // Runs resolve as soon as their processes cannot run code; their cleanup may still be going on.
      await Promise.all([...children].map((child) => child.dispose().then(() => child.cleanedUp)));
    },
  };
}

/** The run's policy: the runtime's process rule plus the request's paths and network (resolve()d). */
function workspacePolicyOf(spec: ResolvedRunSpec, processes: boolean): WorkspacePolicy {
  return { cwd: spec.cwd, read: spec.policy.read, write: spec.policy.write, network: spec.policy.network, processes };
}

/** Everything about a run that is fixed when its child is spawned (binds, network, cwd). */
function policyKeyOf(spec: ResolvedRunSpec): string {
  return JSON.stringify([spec.cwd, [...spec.policy.read].sort(), [...spec.policy.write].sort(), spec.policy.network]);
}

/** A spec that did not come from this runtime's resolve() is validated as the request it stands for. */
function respecify(spec: ResolvedRunSpec): RunRequest {
  if (typeof spec !== 'object' || spec === null) throw new ConfigError('run() needs a spec returned by resolve().');
  const policy: unknown = spec.policy;
  const p = (typeof policy === 'object' && policy !== null ? policy : {}) as Partial<ResolvedRunSpec['policy']>;
  return {
    program: spec.program,
    bindings: spec.bindings,
    cwd: spec.cwd,
    timeoutMs: spec.timeoutMs,
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
    ...(spec.onLog === undefined ? {} : { onLog: spec.onLog }),
    policy: {
      ...(p.read === undefined ? {} : { allowRead: p.read }),
      ...(p.write === undefined ? {} : { allowWrite: p.write }),
      ...(p.network === undefined ? {} : { network: p.network }),
    },
  };
}

/** Waits for the child's `ready`, bounded by the run's deadline, its signal and the runtime closing. */
function waitReady(
  child: ProgramChild,
  deadlineAt: number,
  spec: ResolvedRunSpec,
  closeSignal: AbortSignal,
): Promise<ErrorInfo | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      if (timer !== undefined) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      closeSignal.removeEventListener('abort', onClose);
    };
    const finish = (error: ErrorInfo | undefined) => {
      cleanup();
      resolve(error);
    };
    const onAbort = () => finish({ code: 'ABORTED', message: 'the run was aborted' });
    const onClose = () => finish({ code: 'ABORTED', message: 'the runtime was closed' });
    timer = setTimeout(
      () =>
        finish({
          code: 'TIMEOUT',
          message: `the program's process did not start within the ${spec.timeoutMs} ms deadline`,
        }),
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
