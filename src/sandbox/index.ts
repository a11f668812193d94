// The sandbox's public surface: nothing outside src/sandbox/ imports any other file of it (checked by
// public-surface.test.ts). A confined process is started with launch() (docs/sandbox-launch.md);
// policies are resolved with resolveWorkspacePolicy (docs/sandbox.md); the rest are the probe, the
// kernel support checks and the host-private state helpers the tools and runtimes share.

// Starting a confined process.
export {
  launch,
  launchReport,
  reportStartFailure,
  type LaunchCommand,
  type Launched,
  type LaunchedChild,
  type LaunchLimits,
  type LaunchOptions,
  type LaunchReport,
  type LaunchStdio,
  type LaunchStdioEntry,
  type ProgramStdio,
} from './launch.js';
export type { ConfinedProcess } from './confined-process.js';
export { NODE_PERMISSION_ENFORCEMENT, NONE_ENFORCEMENT, planLaunch, selectBackend } from './plan-launch.js';
export type { LaunchPlan, LaunchRequest, PlanLaunch, SandboxBackendName, SandboxEnforcement, SandboxMode, SandboxPolicy, SandboxReport } from './types.js';

// Policies.
export { defaultSandboxEnv, isWithin, policyKey, type DefaultSandboxEnvOptions } from './policy.js';
export {
  isProtectedUnder,
  policyRoots,
  resolveWorkspacePolicy,
  sandboxPolicyOf,
  type WorkspacePolicy,
  type WorkspacePolicyInput,
} from './workspace-policy.js';
export { SANDBOX_ETC_ENTRIES } from './bwrap.js';

// What this host supports, and switches for tests and the bench.
export { overrideSandboxProbe, probeSandbox, type SandboxProbe } from './probe.js';
export { setSpawnerEnabled } from './spawner.js';
export { signalName, type SpawnedProcess } from './spawned-process.js';
export { taskLimitSupport, type TaskLimitSupport } from './task-limit.js';
export { freezerSupport, holdThaws, setFreezeEnabled } from './freezer.js';
export { memoryLimitSupport, type MemoryGroup, type MemoryMechanism } from './memory-limit.js';
export { residentBytes } from './proc-tree.js';

// Host-private state (docs/security.md, "Host-private state").
export { sweepStaleRunState, sweepStaleState } from './stale.js';
export { excludeWritableRoots, makePrivateDir, privateRoot } from './private-dir.js';
export { ownerProvablyDead, ownerTag, parseOwner } from './owner.js';
