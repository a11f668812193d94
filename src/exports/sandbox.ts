// `ptc-harness/sandbox`: how a confined process is planned (bwrap with seccomp, or Node's permission
// flags as the reported-partial fallback), what this machine supports, and the workspace policy a
// launch gets (docs/sandbox.md).

export { planLaunch, probeSandbox, type LaunchPlan, type LaunchRequest, type SandboxPolicy, type SandboxProbe } from '../sandbox/index.js';
export { resolveWorkspacePolicy, type WorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/workspace-policy.js';
