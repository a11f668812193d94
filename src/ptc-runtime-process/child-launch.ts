// What a process runtime's child is started with: the provider's command (interpreter, arguments,
// bootstrap), the words its messages use, the launch options fixed per runtime and policy, and the
// launch made from them (sandbox.launch, the same policy for every language; docs/sandbox-launch.md).

import type { SandboxMode } from '../ptc-runtime/types.js';
import {
  defaultSandboxEnv,
  excludeWritableRoots,
  launch,
  policyRoots,
  sandboxPolicyOf,
  type Launched,
  type LaunchReport,
  type ProgramStdio,
  type WorkspacePolicy,
} from '../sandbox/index.js';
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
 * Starts a child: its sandbox launch with the bootstrap on stdin. `makeTmpDir` makes the private host
 * temp dir, called only when the backend has no private /tmp of its own (everything but bwrap);
 * `beforeSpawn` sees the planned sandbox and may cancel the launch by throwing (launch()).
 */
export async function launchChild(
  o: ChildLaunchOptions,
  makeTmpDir: () => string | undefined,
  beforeSpawn: (report: LaunchReport) => void,
): Promise<Launched<ProgramStdio>> {
  const command = await o.command();
  // The run dir below and the probe's cache live in the private root, which must lie outside this
  // policy's writable roots: recorded before either is touched (docs/security.md, "Host-private state").
  // Not under `off`: an unconfined program can reach the root wherever it is, and a workspace of `/`
  // must not leave no candidate.
  if (o.mode !== 'off') excludeWritableRoots(policyRoots(o.policy, 'write'));
  return launch({
    command,
    policy: (backend) => {
      const tmp = backend === 'bwrap' ? undefined : makeTmpDir();
      const env = defaultSandboxEnv(o.policy.cwd, tmp === undefined ? {} : { tmpDir: tmp });
      if (command.pathPrefix !== undefined) env['PATH'] = `${command.pathPrefix}:${env['PATH'] ?? '/usr/bin:/bin'}`;
      return sandboxPolicyOf(o.policy, env, tmp === undefined ? {} : { privateDir: tmp });
    },
    mode: o.mode,
    stdio: { program: { stdin: command.stdin } },
    limits: { maxTasks: o.maxTasks, memoryLimitBytes: o.memoryLimitBytes, tmpMaxBytes: o.tmpMaxBytes },
    truthfulExit: true,
    beforeSpawn,
  });
}
