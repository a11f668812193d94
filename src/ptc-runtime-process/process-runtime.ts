// The ptc-runtime seam for any interpreter run as a sandboxed child process: resolve() validates
// caller input (and warms a child for the policy); run() prepares the program on the host, takes a
// warm child (or starts one) and hands both to a run session. In `in-memory` execution, runs that
// share a memoryKey take turns in one kept process (docs/in-memory-mode.md). run() never rejects for
// a failed program: every failure is a coded error field of the result. A language provider
// (ProcessLanguage) supplies only what differs: the interpreter, the program's preparation, names.

import { randomBytes } from 'node:crypto';
import { ConfigError, type ErrorInfo } from '../errors.js';
import { resolveRunRequest } from '../ptc-runtime/resolve-request.js';
import type { ProgramExecution, PtcLanguage, PtcRuntime, ResolvedRunSpec, RunRequest, RunResult, SandboxReport } from '../ptc-runtime/types.js';
import { WarmPool } from './warm-pool.js';
import { BootPause } from './boot-pause.js';
import { launchReport, NONE_ENFORCEMENT, sandboxPolicyOf, sweepStaleRunState } from '../sandbox/index.js';
import { memoryResetNote, Memories, type Memory } from './in-memory.js';
import type { ProcessLanguage } from './language.js';
import type { ProcessRuntimeConfig } from './options.js';
import type { ChildLaunchOptions } from './child-launch.js';
import { ProcessChild } from './process-child.js';
import { runSession, type SessionOutcome } from './run-session.js';
import { policyKeyOf, respecify, workspacePolicyOf } from './run-spec.js';
import type { PhaseTrace } from './trace.js';
import { waitReady } from './wait-ready.js';

/** What the shared runtime is configured with: the shared options plus tracing (Node has it). */
export interface ProcessRuntimeSetup extends ProcessRuntimeConfig {
  readonly onPhases?: ((trace: PhaseTrace) => void) | undefined;
}

/** A runtime of the seam whose programs run in sandboxed child processes; a provider adds its config. */
export interface ProcessRuntime<L extends PtcLanguage = PtcLanguage> extends PtcRuntime {
  readonly language: L;
  readonly execution: ProgramExecution;
  /** In-memory mode: ends the kept process of a conversation now (its session ended). */
  forget(memoryKey: object): Promise<void>;
}

const NO_SANDBOX: SandboxReport = Object.freeze({ backend: 'none', enforced: NONE_ENFORCEMENT });
const NO_NOTES: readonly string[] = Object.freeze([]);

interface RunShape {
  readonly keep: boolean;
  readonly firstCallId: number;
  readonly notes: readonly string[];
  /** In-memory mode: the kept process's channel key, undefined before its first run. */
  readonly channelKey?: string | undefined;
}

/** Random bytes of a kept process's channel key (run-session.ts): 144 bits, 24 base64url characters. */
const CHANNEL_KEY_BYTES = 18;

type Fail = (error: ErrorInfo, sandbox?: SandboxReport, logs?: readonly string[]) => Promise<RunResult>;

export function createProcessRuntime<L extends PtcLanguage>(config: ProcessRuntimeSetup, language: ProcessLanguage<L>): ProcessRuntime<L> {
  // Temp dirs and pids groups of hosts that died without cleaning up (once per process, in the background).
  void sweepStaleRunState();
  // Each needs the other: the pause stops the pool's boots, and the pool's refills wait while it holds.
  let bootPause: BootPause<ProcessChild> | undefined;
  const pool = config.pool === false ? undefined : new WarmPool<ProcessChild>(config.pool, { held: () => bootPause?.holding === true });
  bootPause = pool === undefined ? undefined : new BootPause<ProcessChild>(() => pool.booting());
  const resolvedSpecs = new WeakSet<ResolvedRunSpec>();
  const closing = new AbortController();
  const active = new Set<Promise<RunResult>>();
  const memories = new Memories(config.memoryIdleMs);
  let lastReport: SandboxReport | undefined;

  const launchOptions = (spec: ResolvedRunSpec, ahead: boolean): ChildLaunchOptions => ({
    mode: config.sandbox,
    policy: workspacePolicyOf(spec, config.processes),
    maxFrameBytes: config.maxFrameBytes,
    maxStdioBytes: config.maxStdioBytes,
    exitDrainGraceMs: config.exitDrainGraceMs,
    maxTasks: config.maxTasks,
    memoryLimitBytes: config.rssLimitMb * 1024 * 1024,
    tmpMaxBytes: config.tmpMaxBytes,
    command: () => language.command(ahead),
    texts: language.childTexts,
    onProcess: config.onProcess,
    onPhases: config.onPhases,
  });
  // Every child until its cleanup is done: close() waits for that too, so nothing is left behind.
  const children = new Set<ProcessChild>();
  // `ahead`: a child for the pool, started before a run needs it; a run that starts its own waits for it.
  const starter = (spec: ResolvedRunSpec, ahead = true) => () => {
    const child = new ProcessChild(launchOptions(spec, ahead));
    children.add(child);
    void child.cleanedUp.then(() => children.delete(child));
    return child;
  };

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
      reservedGlobals: language.reservedGlobals,
      maxProgramBytes: config.maxProgramBytes,
    });
    language.checkSpec?.(base);
    const spec: ResolvedRunSpec = memoryKey === undefined ? base : Object.freeze({ ...base, memoryKey });
    resolvedSpecs.add(spec);
    // A first run of this policy: its child starts now, while the caller is on its way to run().
    if (memoryKey === undefined || !memories.holds(memoryKey)) pool?.prime(policyKeyOf(spec), starter(spec));
    return spec;
  }

  /** The sandbox a run with `spec` gets, for results produced before any child was involved. */
  async function reportFor(spec: ResolvedRunSpec): Promise<SandboxReport> {
    if (lastReport !== undefined) return lastReport;
    try {
      const command = await language.command(false);
      const { backend, enforced } = await launchReport({
        command: { kind: command.kind, command: command.command, args: command.args },
        policy: sandboxPolicyOf(workspacePolicyOf(spec, config.processes), {}),
        mode: config.sandbox,
      });
      lastReport = { backend, enforced };
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
    const fail: Fail = async (error, sandbox, logs = NO_NOTES) => ({ logs: [...logs], error, sandbox: sandbox ?? (await reportFor(spec)) });
    if (spec.signal?.aborted) return fail({ code: 'ABORTED', message: 'the run was aborted' });
    const memoryKey = config.execution === 'in-memory' ? spec.memoryKey : undefined;
    const prepared = language.prepare(spec.program, memoryKey !== undefined, spec.bindings);
    if (!prepared.ok) return fail(prepared.error);
    const deadlineAt = startedAt + spec.timeoutMs;
    if (memoryKey !== undefined) {
      return memories.take(memoryKey, policyKeyOf(spec), (memory) => runTurn(memory, spec, prepared.code, deadlineAt, fail));
    }

    const start = starter(spec);
    const key = policyKeyOf(spec);
    const onDemand = starter(spec, false);
    const taken = pool?.take(key, start) ?? onDemand();
    taken.mark('take');
    bootPause?.release(taken);
    const outcome = await runOn(taken, spec, prepared.code, deadlineAt, onDemand, { keep: false, firstCallId: 1, notes: NO_NOTES }, fail);
    refill(key, start, outcome.result);
    return outcome.result;
  }

  /**
   * Refill once a run is over, so the new spawn does not compete with it (and not in a loop when
   * children cannot start at all). On the next turn of the event loop: spawning is synchronous work
   * that would otherwise run before the caller sees its result.
   */
  function refill(key: string, start: () => ProcessChild, result: RunResult): void {
    const code = result.error?.code;
    if (pool === undefined || !pool.refills || code === 'SANDBOX_UNAVAILABLE' || code === 'RUNTIME_UNAVAILABLE') return;
    setImmediate(() => {
      if (!closing.signal.aborted) pool.fill(key, start);
    });
  }

  /** One run of an in-memory conversation: its kept process when it has one, else a fresh one. */
  async function runTurn(memory: Memory, spec: ResolvedRunSpec, code: string, deadlineAt: number, fail: Fail): Promise<RunResult> {
    const key = policyKeyOf(spec);
    let child = memory.child;
    if (child !== undefined && (!child.usable || memory.policyKey !== key)) {
      memory.lost ??= child.usable ? 'the sandbox policy changed' : 'its process ended';
      void child.dispose();
      child = undefined;
    }
    const notes = memory.lost === undefined ? NO_NOTES : [memoryResetNote(language.name, memory.lost)];
    memory.lost = undefined;
    const start = starter(spec);
    const fresh = child === undefined;
    const onDemand = starter(spec, false);
    const taken = child ?? pool?.take(key, start) ?? onDemand();
    taken.mark('take');
    bootPause?.release(taken);
    const shape: RunShape = { keep: true, firstCallId: fresh ? 1 : memory.nextCallId, notes, channelKey: fresh ? undefined : memory.channelKey };
    const outcome = await runOn(taken, spec, code, deadlineAt, onDemand, shape, fail);
    if (fresh) refill(key, start, outcome.result);
    if (outcome.kept && !closing.signal.aborted) {
      memories.keep(memory, outcome.child, key, outcome.nextCallId, outcome.channelKey);
    } else {
      if (outcome.kept) void outcome.child.dispose();
      memories.drop(memory, outcome.lostBecause);
    }
    return outcome.result;
  }

  async function runOn(
    taken: ProcessChild,
    spec: ResolvedRunSpec,
    code: string,
    deadlineAt: number,
    start: () => ProcessChild,
    shape: RunShape,
    fail: Fail,
  ): Promise<SessionOutcome & { readonly child: ProcessChild; readonly channelKey?: string | undefined }> {
    let child = taken;
    let firstCallId = shape.firstCallId;
    let channelKey = shape.channelKey;
    // Ready when taken: a warm run, which children booting for the pool wait for (boot-pause.ts).
    const warm = taken.usable;
    // A warm child has nothing to wait for: no timer, no listeners, no turn of the event loop (the
    // session checks the abort, the close and the deadline itself; docs/benchmarks.md, "Warm run profile").
    let readyError = warm ? undefined : await waitReady(child, deadlineAt, spec, closing.signal, language.notStarted);
    if (readyError === undefined && !child.usable) {
      // A waiting child died (killed from outside): start a fresh one instead.
      void child.dispose();
      child = start();
      child.mark('take');
      firstCallId = 1;
      channelKey = undefined;
      readyError = await waitReady(child, deadlineAt, spec, closing.signal, language.notStarted);
    }
    if (child.sandbox !== undefined) lastReport = child.sandbox;
    if (readyError !== undefined) {
      await child.dispose();
      child.mark('result');
      const result = await fail(readyError, readyError.code === 'SANDBOX_UNAVAILABLE' ? NO_SANDBOX : child.sandbox, shape.notes);
      return { result, kept: false, nextCallId: 1, child };
    }
    // A kept process gets its key with its first run frame, before any program of it has run.
    const sendChannelKey = shape.keep && channelKey === undefined;
    if (sendChannelKey) channelKey = randomBytes(CHANNEL_KEY_BYTES).toString('base64url');
    const session = runSession({
      child,
      sandbox: child.sandbox ?? NO_SANDBOX,
      spec,
      code,
      deadlineAt,
      closeSignal: closing.signal,
      trackDescendants: child.sandbox?.backend !== 'bwrap',
      texts: language.sessionTexts,
      keep: shape.keep,
      firstCallId,
      notes: shape.notes,
      channelKey: shape.keep ? channelKey : undefined,
      sendChannelKey,
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
    // The run frame is written by now: the program is under way while the boots are paused.
    const endPause = warm ? bootPause?.begin(child) : undefined;
    const outcome = await session;
    // After the caller has its result: the boots woken here would otherwise take the CPU first.
    if (endPause !== undefined) setImmediate(endPause);
    child.mark('result');
    return { ...outcome, child, channelKey };
  }

  return {
    language: language.language,
    isolation: 'process',
    execution: config.execution,
    sandboxMode: config.sandbox,
    timeout: config.timeout,
    resolve,
    run(spec: ResolvedRunSpec): Promise<RunResult> {
      const running = execute(spec).catch(async (error: unknown): Promise<RunResult> => {
        // Caller misuse rejects; anything else is our own fault and still only fails this run.
        if (error instanceof ConfigError) throw error;
        return {
          logs: [],
          error: { code: 'RUNTIME_UNAVAILABLE', message: `the ${language.name} runtime failed: ${error instanceof Error ? error.message : String(error)}` },
          sandbox: lastReport ?? NO_SANDBOX,
        };
      });
      active.add(running);
      const forget = () => active.delete(running);
      running.then(forget, forget);
      return running;
    },
    forget: (memoryKey) => memories.forget(memoryKey),
    async close(): Promise<void> {
      closing.abort();
      await pool?.close();
      await Promise.allSettled([...active]);
      await memories.close();
      // Runs resolve as soon as their processes cannot run code; their cleanup may still be going on.
      // killNow() ends a sandbox still frozen for a later thaw now rather than after the pause.
      await Promise.all(
        [...children].map((child) =>
          child.dispose().then(() => {
            child.killNow();
            return child.cleanedUp;
          }),
        ),
      );
    },
  };
}
