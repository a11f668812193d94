// A queued job names the sandbox mode its eval was given, but anyone who can write to the Redis can
// queue jobs: a worker runs each with the stricter of the job's mode and its own `--sandbox`, so a
// job can tighten the sandbox and never loosen it. docs/eval.md, "Queue mode".

import type { SandboxMode } from '../../ptc-runtime/types.js';

const STRICTNESS: Record<SandboxMode, number> = { off: 0, auto: 1, required: 2 };

/** The stricter of two sandbox modes (required > auto > off). */
export function stricterSandbox(a: SandboxMode, b: SandboxMode): SandboxMode {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}
