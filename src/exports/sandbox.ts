// `ptc-harness/sandbox`: launching a confined process (bwrap with seccomp, or Node's permission flags
// as the reported-partial fallback; docs/sandbox-launch.md), planning one, what this machine
// supports, and the workspace policy a launch gets (docs/sandbox.md).

export {
  launch,
  planLaunch,
  probeSandbox,
  resolveWorkspacePolicy,
  type LaunchOptions,
  type LaunchPlan,
  type LaunchRequest,
  type Launched,
  type SandboxPolicy,
  type SandboxProbe,
  type WorkspacePolicy,
  type WorkspacePolicyInput,
} from '../sandbox/index.js';
