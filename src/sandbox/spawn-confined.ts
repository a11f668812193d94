// spawnConfined and launchConfined: how a launch plan becomes a running process. spawnConfined spawns
// the plan detached (its own process group) with the caller's stdio plus the plan's fds and releases
// the plan; launchConfined, for a runtime's child, lets the spawner start it under bwrap
// (spawner.ts) and falls back to spawnConfined. Both give a ConfinedProcess (confined.ts). Internal:
// the rest of the project starts processes through launch() (launch.ts, docs/sandbox-launch.md).

import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Writable } from 'node:stream';
import { Confined } from './confined.js';
import type { ConfinedProcess, SpawnConfinedOptions } from './confined-process.js';
import { coverInheritedFds } from './inherited-fds.js';
import type { SpawnedProcess } from './spawned-process.js';
import { spawnThroughHelper } from './spawner.js';
import { sweepStaleRunState } from './stale.js';
import type { LaunchPlan } from './types.js';

/**
 * Starts a runtime's child: stdin fed with `stdin` (then ended), stdout discarded, stderr and a control
 * channel on fd 3 as streams (`child.stdio[2]` and `[3]`, paused until the caller resumes them). Under
 * bwrap, through the spawner when it is up (docs/sandbox.md, "The spawner"); otherwise, or when the
 * spawner fails, spawnConfined with all four fds piped. Always releases the plan.
 */
export async function launchConfined(
  plan: LaunchPlan,
  options: { readonly stdin: string; readonly maxTasks?: number | false; readonly memoryLimitBytes?: number },
): Promise<ConfinedProcess<ChildProcess | SpawnedProcess>> {
  const spawnOptions: SpawnConfinedOptions = {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    freeze: true,
    ...(options.maxTasks === undefined ? {} : { maxTasks: options.maxTasks }),
    ...(options.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: options.memoryLimitBytes }),
  };
  if (plan.backend === 'bwrap' && plan.passFds.length <= 1 && plan.passBytes.length === plan.passFds.length) {
    void sweepStaleRunState();
    const bytes = plan.passBytes[0];
    const spawned = await spawnThroughHelper({
      command: plan.command,
      args: plan.args,
      env: plan.env,
      stdin: options.stdin,
      ...(bytes === undefined ? {} : { passFd: { fd: spawnOptions.stdio.length, bytes } }),
    });
    if (spawned !== undefined) {
      plan.release();
      return new Confined(spawned, plan, spawnOptions);
    }
  }
  const confined = spawnConfined(plan, spawnOptions);
  const [stdin, , stderr, channel] = confined.child.stdio as unknown as [NodeJS.WritableStream | null, unknown, { pause(): void } | null, { pause(): void } | null];
  stderr?.pause();
  channel?.pause();
  stdin?.on('error', () => undefined);
  stdin?.end(options.stdin);
  return confined;
}

/** Spawns `plan` and always releases it. Throws only what child_process.spawn throws synchronously. */
export function spawnConfined(plan: LaunchPlan, options: SpawnConfinedOptions): ConfinedProcess {
  void sweepStaleRunState();
  let child: ChildProcess;
  try {
    child = spawn(plan.command, [...plan.args], {
      env: { ...plan.env },
      cwd: plan.cwd,
      // /dev/null over every descriptor the host inherited without close-on-exec (inherited-fds.ts).
      stdio: coverInheritedFds([...options.stdio, ...plan.passFds, ...(plan.gated ? ['pipe' as const] : [])]) as StdioOptions,
      // Its own process group: kill(-pid) reaches the command and the descendants that stay in it.
      detached: true,
    });
  } finally {
    plan.release();
  }
  if (moveDelayForTests > 0) blockFor(moveDelayForTests);
  const confined = new Confined(child, plan, options);
  if (plan.gated) openGate(confined, child.stdio[options.stdio.length + plan.passFds.length]);
  return confined;
}

/**
 * Lets a gated bwrap start its command (LaunchPlan.gated). The constructor moved bwrap into the
 * launch's groups, so whatever it forks from then on is born in them; recordChain() moves what it
 * forked before that, which is blocked on the gate and has forked nothing itself. Only then does the
 * command run, so no process of it is ever outside the memory limit (docs/sandbox.md, "Memory").
 */
function openGate(confined: ConfinedProcess, gate: unknown): void {
  confined.recordChain();
  const stream = gate as Writable | null | undefined;
  if (stream === null || stream === undefined) return;
  // bwrap gone before it read the byte (a failed start) is its exit's to report, not the write's.
  stream.on('error', () => undefined);
  stream.end('.');
}

let moveDelayForTests = 0;

/**
 * Tests only: holds the host's thread this long between the spawn and the moves into the launch's
 * groups, as a loaded host can, so a test sees what a command could do before the moves.
 */
export function setGroupMoveDelayForTests(ms: number): void {
  moveDelayForTests = ms;
}

function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
