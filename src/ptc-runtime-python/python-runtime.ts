// createPythonRuntime: the python3 process provider of the ptc-runtime seam (docs/python-runtime.md).
// resolve() validates caller input (and warms a child for the policy); run() takes a warm sandboxed
// child (or starts one) and hands it the program. In `in-memory` execution, runs that share a
// memoryKey reuse one kept process. run() never rejects for a failed program.

import { ConfigError, HarnessError, type ErrorInfo } from '../errors.js';
import { resolveRunRequest } from '../ptc-runtime/resolve-request.js';
import type { PtcRuntime, ResolvedRunSpec, RunRequest, RunResult, SandboxReport } from '../ptc-runtime/types.js';
import { WarmPool } from '../ptc-runtime-node/warm-pool.js';
import { NONE_ENFORCEMENT, sweepStaleRunState, type WorkspacePolicy } from '../sandbox/index.js';
import { resolvePythonRuntimeOptions, type PythonRuntimeConfig, type PythonRuntimeOptions } from './options.js';
import { PythonChild, type PythonLaunchOptions } from './python-child.js';
import { runPythonSession, type PythonSessionOutcome } from './python-session.js';

/** Names a binding global cannot take: Python keywords and the names the bootstrap uses. */
export const PYTHON_RESERVED_GLOBALS: readonly string[] = [
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def',
  'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is',
  'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
  'print', '__builtins__', '__name__', '__ptc_main__',
];

const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NO_SANDBOX: SandboxReport = Object.freeze({ backend: 'none', enforced: NONE_ENFORCEMENT });

export interface PythonRuntime extends PtcRuntime {
  readonly language: 'python';
  readonly config: PythonRuntimeConfig;
  /** In-memory mode: ends the kept process of a conversation now (its session ended). */
  forget(memoryKey: object): Promise<void>;
}

/** One conversation's kept process (in-memory mode). */
interface Memory {
  child: PythonChild | undefined;
  policyKey: string;
  nextCallId: number;
  idle: NodeJS.Timeout | undefined;
  /** Why the last kept process was lost; said once, at the start of the next run. */
  lost: string | undefined;
  /** Runs of one conversation take turns. */
  queue: Promise<unknown>;
}

export function createPythonRuntime(options: PythonRuntimeOptions = {}): PythonRuntime {
  const config = resolvePythonRuntimeOptions(options);
  void sweepStaleRunState();
  const pool = config.pool === false ? undefined : new WarmPool<PythonChild>(config.pool);
  const resolvedSpecs = new WeakSet<ResolvedRunSpec>();
  const closing = new AbortController();
  const active = new Set<Promise<RunResult>>();
  const memories = new WeakMap<object, Memory>();
  const liveMemories = new Set<Memory>();
  let lastReport: SandboxReport | undefined;

  const launchOptions = (spec: ResolvedRunSpec): PythonLaunchOptions => ({
    mode: config.sandbox,
    pythonPath: config.pythonPath,
    processes: config.processes,
    maxFrameBytes: config.maxFrameBytes,
    maxStdioBytes: config.maxStdioBytes,
    exitDrainGraceMs: config.exitDrainGraceMs,
    policy: workspacePolicyOf(spec, config.processes),
    maxTasks: config.maxTasks,
    tmpMaxBytes: config.tmpMaxBytes,
    onProcess: config.onProcess,
  });
  const starter = (spec: ResolvedRunSpec) => () => new PythonChild(launchOptions(spec));

  async function resolve(request: RunRequest): Promise<ResolvedRunSpec> {
    if (closing.signal.aborted) throw new ConfigError('The runtime is closed.');
    if (typeof request !== 'object' || request === null) throw new ConfigError('request must be an object.');
    const { memoryKey, ...rest } = request;
    if (memoryKey !== undefined) {
      if (config.execution !== 'in-memory') throw new ConfigError('memoryKey is only for a runtime created with execution: "in-memory".');
      if ((typeof memoryKey !== 'object' && typeof memoryKey !== 'function') || memoryKey === null) {
        throw new ConfigError('memoryKey must be an object (runs with the same object share a namespace).');
      }
    }
    const base = await resolveRunRequest(rest, {
      timeout: config.timeout,
      reservedGlobals: PYTHON_RESERVED_GLOBALS,
      maxProgramBytes: config.maxProgramBytes,
    });
    base.bindings.forEach((binding, index) => {
      for (const [field, name] of [['global', binding.global], ['errorClass.name', binding.errorClass?.name]] as const) {
        if (name !== undefined && !PYTHON_IDENTIFIER.test(name)) {
          throw new ConfigError(`bindings[${index}].${field}: "${name}" is not a Python identifier (letters, digits and _).`);
        }
      }
    });
    const spec: ResolvedRunSpec = Object.freeze(memoryKey === undefined ? { ...base } : { ...base, memoryKey });
    resolvedSpecs.add(spec);
    if (memoryKey === undefined || memories.get(memoryKey)?.child === undefined) pool?.prime(policyKeyOf(spec), starter(spec));
    return spec;
  }

  async function execute(input: ResolvedRunSpec): Promise<RunResult> {
    const startedAt = Date.now();
    if (closing.signal.aborted) {
      return { logs: [], error: { code: 'RUNTIME_UNAVAILABLE', message: 'the runtime is closed' }, sandbox: lastReport ?? NO_SANDBOX };
    }
    const spec = resolvedSpecs.has(input) ? input : await resolve(respecify(input));
    if (spec.signal?.aborted) return { logs: [], error: { code: 'ABORTED', message: 'the run was aborted' }, sandbox: lastReport ?? NO_SANDBOX };
    const deadlineAt = startedAt + spec.timeoutMs;
    if (config.execution === 'in-memory' && spec.memoryKey !== undefined) return runInMemory(spec, spec.memoryKey, deadlineAt);
    const key = policyKeyOf(spec);
    const start = starter(spec);
    const outcome = await runOn(pool?.take(key, start) ?? start(), spec, deadlineAt, start, { keep: false, firstCallId: 1 });
    refill(key, start, outcome.result);
    return outcome.result;
  }

  function refill(key: string, start: () => PythonChild, result: RunResult): void {
    const code = result.error?.code;
    if (pool === undefined || code === 'SANDBOX_UNAVAILABLE' || code === 'RUNTIME_UNAVAILABLE') return;
    setImmediate(() => {
      if (!closing.signal.aborted) pool.fill(key, start);
    });
  }

  function runInMemory(spec: ResolvedRunSpec, memoryKey: object, deadlineAt: number): Promise<RunResult> {
    let memory = memories.get(memoryKey);
    if (memory === undefined) {
      memory = { child: undefined, policyKey: policyKeyOf(spec), nextCallId: 1, idle: undefined, lost: undefined, queue: Promise.resolve() };
      memories.set(memoryKey, memory);
    }
    const current = memory;
    const turn = current.queue.then(() => runTurn(current, spec, deadlineAt));
    current.queue = turn.catch(() => undefined);
    return turn;
  }

  async function runTurn(memory: Memory, spec: ResolvedRunSpec, deadlineAt: number): Promise<RunResult> {
    if (memory.idle !== undefined) clearTimeout(memory.idle);
    memory.idle = undefined;
    const key = policyKeyOf(spec);
    let child = memory.child;
    if (child !== undefined && (!child.usable || memory.policyKey !== key)) {
      memory.lost ??= child.usable ? 'the sandbox policy changed' : 'its process ended';
      void child.dispose();
      child = undefined;
    }
    const notes = memory.lost === undefined ? [] : [memoryResetNote(memory.lost)];
    memory.lost = undefined;
    const start = starter(spec);
    const fresh = child === undefined;
    const outcome = await runOn(child ?? pool?.take(key, start) ?? start(), spec, deadlineAt, start, {
      keep: true,
      firstCallId: fresh ? 1 : memory.nextCallId,
      notes,
    });
    if (fresh) refill(key, start, outcome.result);
    if (outcome.kept && !closing.signal.aborted) {
      memory.child = outcome.child;
      memory.policyKey = key;
      memory.nextCallId = outcome.nextCallId;
      liveMemories.add(memory);
      memory.idle = setTimeout(() => {
        memory.idle = undefined;
        const idleChild = memory.child;
        memory.child = undefined;
        memory.lost = `it was idle for more than ${Math.round(config.memoryIdleMs / 1000)} s`;
        liveMemories.delete(memory);
        void idleChild?.dispose();
      }, config.memoryIdleMs);
      memory.idle.unref();
    } else {
      if (outcome.kept) void outcome.child.dispose();
      memory.child = undefined;
      liveMemories.delete(memory);
      if (outcome.lostBecause !== undefined) memory.lost = outcome.lostBecause;
    }
    return outcome.result;
  }

  async function runOn(
    taken: PythonChild,
    spec: ResolvedRunSpec,
    deadlineAt: number,
    start: () => PythonChild,
    run: { keep: boolean; firstCallId: number; notes?: readonly string[] },
  ): Promise<PythonSessionOutcome & { child: PythonChild }> {
    let child = taken;
    let firstCallId = run.firstCallId;
    let readyError = await waitReady(child, deadlineAt, spec, closing.signal);
    if (readyError === undefined && !child.usable) {
      // A waiting child died (killed from outside): start a fresh one instead.
      void child.dispose();
      child = start();
      firstCallId = 1;
      readyError = await waitReady(child, deadlineAt, spec, closing.signal);
    }
    if (child.sandbox !== undefined) lastReport = child.sandbox;
    if (readyError !== undefined) {
      await child.dispose();
      const sandbox = readyError.code === 'SANDBOX_UNAVAILABLE' ? NO_SANDBOX : (child.sandbox ?? lastReport ?? NO_SANDBOX);
      return { result: { logs: [...(run.notes ?? [])], error: readyError, sandbox }, kept: false, nextCallId: 1, child };
    }
    const outcome = await runPythonSession({
      child,
      sandbox: child.sandbox ?? NO_SANDBOX,
      spec,
      deadlineAt,
      closeSignal: closing.signal,
      trackDescendants: child.sandbox?.backend !== 'bwrap',
      keep: run.keep,
      firstCallId,
      ...(run.notes === undefined ? {} : { notes: run.notes }),
      limits: {
        maxOutputBytes: config.maxOutputBytes,
        maxFrameBytes: config.maxFrameBytes,
        maxPendingCalls: config.maxPendingCalls,
        maxPendingArgsBytes: config.maxPendingArgsBytes,
        rssLimitBytes: config.rssLimitMb * 1024 * 1024,
        rssIntervalMs: config.rssIntervalMs,
      },
    });
    return { ...outcome, child };
  }

  return {
    language: 'python',
    isolation: 'process',
    execution: config.execution,
    sandboxMode: config.sandbox,
    timeout: config.timeout,
    config,
    resolve,
    run(spec: ResolvedRunSpec): Promise<RunResult> {
      const running = execute(spec).catch(async (error: unknown): Promise<RunResult> => {
        if (error instanceof ConfigError) throw error;
        return {
          logs: [],
          error: { code: 'RUNTIME_UNAVAILABLE', message: `the Python runtime failed: ${error instanceof Error ? error.message : String(error)}` },
          sandbox: lastReport ?? NO_SANDBOX,
        };
      });
      active.add(running);
      const forget = () => active.delete(running);
      running.then(forget, forget);
      return running;
    },
    async forget(memoryKey: object): Promise<void> {
      const memory = memories.get(memoryKey);
      if (memory === undefined) return;
      memories.delete(memoryKey);
      await memory.queue;
      if (memory.idle !== undefined) clearTimeout(memory.idle);
      liveMemories.delete(memory);
      const child = memory.child;
      memory.child = undefined;
      await child?.dispose();
    },
    async close(): Promise<void> {
      closing.abort();
      await pool?.close();
      await Promise.allSettled([...active]);
      const kept = [...liveMemories];
      liveMemories.clear();
      await Promise.all(
        kept.map((memory) => {
          if (memory.idle !== undefined) clearTimeout(memory.idle);
          const child = memory.child;
          memory.child = undefined;
          return child?.dispose();
        }),
      );
    },
  };
}

/** The line an in-memory run starts with after its conversation's process was lost. */
export function memoryResetNote(reason: string): string {
  return `[memory reset: the kept Python process was lost (${reason}); names defined by earlier programs are gone, define them again]`;
}

function workspacePolicyOf(spec: ResolvedRunSpec, processes: boolean): WorkspacePolicy {
  return { cwd: spec.cwd, read: spec.policy.read, write: spec.policy.write, network: spec.policy.network, processes };
}

function policyKeyOf(spec: ResolvedRunSpec): string {
  return JSON.stringify([spec.cwd, [...spec.policy.read].sort(), [...spec.policy.write].sort(), spec.policy.network]);
}

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
    ...(spec.memoryKey === undefined ? {} : { memoryKey: spec.memoryKey }),
    policy: {
      ...(p.read === undefined ? {} : { allowRead: p.read }),
      ...(p.write === undefined ? {} : { allowWrite: p.write }),
      ...(p.network === undefined ? {} : { network: p.network }),
    },
  };
}

function waitReady(child: PythonChild, deadlineAt: number, spec: ResolvedRunSpec, closeSignal: AbortSignal): Promise<ErrorInfo | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: ErrorInfo | undefined) => {
      if (timer !== undefined) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      closeSignal.removeEventListener('abort', onClose);
      resolve(error);
    };
    const onAbort = () => finish({ code: 'ABORTED', message: 'the run was aborted' });
    const onClose = () => finish({ code: 'ABORTED', message: 'the runtime was closed' });
    timer = setTimeout(
      () => finish({ code: 'TIMEOUT', message: `the program's python3 process did not start within the ${spec.timeoutMs} ms deadline` }),
      Math.max(0, deadlineAt - Date.now()),
    );
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    closeSignal.addEventListener('abort', onClose, { once: true });
    child.ready.then(
      () => finish(undefined),
      (error: unknown) =>
        finish(error instanceof HarnessError ? error.toInfo() : { code: 'RUNTIME_UNAVAILABLE', message: error instanceof Error ? error.message : String(error) }),
    );
  });
}
