// The `harness` service: the settings a harness was created with, provided on its root context
// before any preset row loads, so rows (shipped or the user's) build on the same policy and options.

import type { ApprovalRuleSet } from './approvals/approval-rule-set.js';
import type { PtcRuntime, SandboxMode } from './ptc-runtime/types.js';
import type { ProcessPoolOptions } from './ptc-runtime-process/options.js';
import type { WorkspacePolicy } from './sandbox/index.js';
import type { WebSearchConfig } from './builtin-tools/web-search/backend.js';

export interface HarnessSettings {
  /** The workspace (absolute, real path). */
  readonly cwd: string;
  /** THE policy (docs/sandbox.md): resolved once, shared by every tool and the runtime. */
  readonly policy: WorkspacePolicy;
  readonly sandbox: SandboxMode;
  /** Default program deadline from the caller (`--timeout`). */
  readonly timeoutMs?: number;
  /** Overlap bound of a program's sub-calls (`--max-parallel`). */
  readonly maxParallelSubCalls?: number;
  /** A runtime the library user supplied: the `node-runtime` row provides it instead of creating one. */
  readonly runtime?: PtcRuntime;
  /**
   * The warm pool of the runtime a `node-runtime` or `python-runtime` row creates, overriding the
   * row's `pool`: the caller knows how it runs programs. `{ size: 1, refill: false }` for a one-shot run (`ptc exec`)
   * starts exactly one child; `false` starts each child on demand (docs/runtime-lifecycle.md).
   */
  readonly runtimePool?: ProcessPoolOptions | false;
  /** The library caller trusted the workspace (`trustWorkspace: true`): a subagent's harness uses the same decision (docs/presets.md, "Trust"). */
  readonly trustWorkspace?: true;
  /** Whether the workspace's own configuration may load (docs/security.md, "Workspace trust"): the `skills` row reads `.ptc/skills` only then. */
  readonly workspaceTrusted?: () => boolean;
  /** The environment the harness was created with (`$XDG_CONFIG_HOME` for the user's skills). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The harness's approval rules (HarnessOptions.approvalRules): a subagent's harness follows the same set. */
  readonly approvalRules?: ApprovalRuleSet;
  /** The config file's `webSearch` (HarnessOptions.webSearch): the web_search tool's backend; a subagent's harness uses the same. */
  readonly webSearch?: WebSearchConfig;
}

declare module './context/context.js' {
  interface Services {
    harness: HarnessSettings;
  }
  interface Events {
    /** Every row of the preset (and the extra rows) loaded: rows that check against the whole tool set (workflows) do it now. */
    'harness/assembled'(): void;
  }
}
