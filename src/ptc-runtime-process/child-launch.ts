// What a process runtime's child is started with: the provider's command (interpreter, arguments,
// bootstrap), the words its messages use, the launch options fixed per runtime and policy, and the
// sandbox plan made from them (through src/sandbox/, the same policy for every language).

import type { SandboxMode } from '../ptc-runtime/types.js';
import { defaultSandboxEnv, excludeWritableRoots, planLaunch, policyRoots, sandboxPolicyOf, selectBackend, type WorkspacePolicy } from '../sandbox/index.js';
import type { LaunchPlan } from '../sandbox/types.js';
import type { ProcessEvent } from './options.js';
import type { PhaseTrace } from './trace.js';

/** What to start: the provider's interpreter, its arguments and the bootstrap fed on stdin. */
export interface ChildCommand {
  /** `node`: the node-permission fallback applies; `exec`: only an OS backend confines it. */
  readonly kind: 'node' | 'exec';
  readonly command: string;
  readonly args: readonly string[];
  /** A directory put before the sandbox's PATH (an interpreter installed outside /usr). */
  readonly pathPrefix?: string;
  /** Host paths the interpreter itself must read, bound read-only. */
  readonly runtimeReadPaths?: readonly string[];
  /** The bootstrap's text, written to stdin (its end is the program's stdin EOF). */
  readonly stdin: string;
}

/** How messages name the process (kept per language so existing messages stay as they were). */
export interface ChildTexts {
  /** "Could not start <start>: ...": `the program process`, `python3`. */
  readonly start: string;
  /** "<process> misbehaved while starting", "<process> was ended before it was ready". */
  readonly process: string;
  /** "<exited> exited before it was ready". */
  readonly exited: string;
}

/** How to start children; fixed per runtime and policy. */
export interface ChildLaunchOptions {
  readonly mode: SandboxMode;
  /** What the program may read, write and reach (the run's widenings applied). */
  readonly policy: WorkspacePolicy;
  readonly maxFrameBytes: number;
  readonly maxStdioBytes: number;
  readonly exitDrainGraceMs: number;
  /** Tasks alive at once in the sandbox (pids group, bwrap only, where one can be made). */
  readonly maxTasks: number;
  /**
   * The memory limit of the whole process tree, in bytes: a memory group from the spawn under bwrap
   * where one can be made, else the session's tree-wide RSS sum (docs/sandbox.md, "Memory").
   */
  readonly memoryLimitBytes: number;
  /** Size of bwrap's private /tmp (the program's TMPDIR there), in bytes. */
  readonly tmpMaxBytes: number;
  /** The interpreter to start; may detect it first (and reject with RUNTIME_UNAVAILABLE). */
  readonly command: () => ChildCommand | Promise<ChildCommand>;
  readonly texts: ChildTexts;
  readonly onProcess?: ((event: ProcessEvent) => void) | undefined;
  /** Receives the phases of each child that ran a program (tracing on); undefined: tracing off. */
  readonly onPhases?: ((trace: PhaseTrace) => void) | undefined;
}

/**
 * The sandbox plan of a child and the bootstrap to feed it. `makeTmpDir` makes the private host temp
 * dir, called only when the backend has no private /tmp of its own (everything but bwrap).
 */
export async function planChild(o: ChildLaunchOptions, makeTmpDir: () => string | undefined): Promise<{ plan: LaunchPlan; stdin: string }> {
  const command = await o.command();
  // The run dir below and the probe's cache live in the private root, which must lie outside this
  // policy's writable roots: recorded before either is touched (docs/security.md, "Host-private state").
  // Not under `off`: an unconfined program can reach the root wherever it is, and a workspace of `/`
  // must not leave no candidate.
  if (o.mode !== 'off') excludeWritableRoots(policyRoots(o.policy, 'write'));
  const backend = await selectBackend(o.mode, command.kind);
  const tmp = backend === 'bwrap' ? undefined : makeTmpDir();
  const env = defaultSandboxEnv(o.policy.cwd, tmp === undefined ? {} : { tmpDir: tmp });
  if (command.pathPrefix !== undefined) env['PATH'] = `${command.pathPrefix}:${env['PATH'] ?? '/usr/bin:/bin'}`;
  const plan = await planLaunch({
    kind: command.kind,
    command: command.command,
    args: command.args,
    policy: sandboxPolicyOf(o.policy, env, tmp === undefined ? {} : { privateDir: tmp }),
    mode: o.mode,
    firstFreeFd: 4,
    ...(command.runtimeReadPaths === undefined ? {} : { runtimeReadPaths: command.runtimeReadPaths }),
    tmpMaxBytes: o.tmpMaxBytes,
    truthfulExit: true,
  });
  return { plan, stdin: command.stdin };
}
