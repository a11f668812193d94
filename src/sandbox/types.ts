// The sandbox backends' interface: turn one policy into a launch plan for a confined process.
// Used by the Node runtime (program children) and the bash tool alike, so both obey one policy.

export type SandboxMode = 'required' | 'auto' | 'off';
export type SandboxBackendName = 'bwrap' | 'node-permission' | 'none';

/** What the chosen backend actually enforces, reported with every result (docs/sandbox.md). */
export interface SandboxEnforcement {
  readonly fs: 'full' | 'partial' | 'none';
  readonly network: 'full' | 'none';
  readonly process: 'full' | 'partial' | 'none';
}

export interface SandboxReport {
  readonly backend: SandboxBackendName;
  readonly enforced: SandboxEnforcement;
  /**
   * How the run's memory limit covers its process tree (docs/sandbox.md, "Memory"): `cgroup-v1`, a
   * memory group the kernel enforces; `tree-rss`, the host's sum of the tree's resident size. Set by
   * the program runtimes once a child was launched; absent elsewhere (bash, a run that never got one).
   */
  readonly memory?: 'cgroup-v1' | 'tree-rss';
}

/** The resolved policy. Paths are absolute, real (symlinks resolved) and existing when resolved. */
export interface WorkspacePolicy {
  /** The workspace: readable and writable; the working directory of programs and commands. */
  readonly cwd: string;
  /** Extra read-only roots (`--allow-read`), none of them inside a writable root. */
  readonly read: readonly string[];
  /** Extra writable (and readable) roots (`--allow-write`), none of them inside cwd or each other. */
  readonly write: readonly string[];
  /** Network for programs and commands (`--allow-net`). */
  readonly network: boolean;
  /** May programs and commands start child processes (confined by the same policy, killed with the run)? */
  readonly processes: boolean;
  /**
   * Paths read-only even inside a writable root (`--protect`), absolute; `.git` and `.ptc` entries are
   * protected besides these whatever this says (docs/sandbox.md, "Protected paths").
   */
  readonly protect?: readonly string[];
  /**
   * The workspace and the writable roots are read-only (a program under `--approve writes|all`: it
   * changes files only through tools that ask; docs/approvals.md). A private temp dir stays writable.
   */
  readonly readOnlyWorkspace?: boolean;
}

/**
 * The full policy of one confined process: a WorkspacePolicy plus its complete environment (nothing
 * is inherited from the host). planLaunch resolves the paths again, so absolute paths suffice here.
 */
export interface SandboxPolicy extends WorkspacePolicy {
  readonly env: Readonly<Record<string, string>>;
}

/** How to start a command under a policy. */
export interface LaunchPlan {
  readonly backend: SandboxBackendName;
  readonly enforced: SandboxEnforcement;
  /** Executable and arguments to pass to child_process.spawn. */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /**
   * File descriptors the spawn must place in its stdio array AFTER the caller's own extra fds
   * (e.g. the seccomp filter for bwrap). Opened fresh per plan; `release()` closes them.
   */
  readonly passFds: readonly number[];
  /** What each of `passFds` holds (read from the start), for a spawner that makes its own copy. */
  readonly passBytes: readonly Uint8Array[];
  /**
   * True when an exit code of 128 + N from the spawned process can only mean that the sandboxed
   * command was killed by signal N (bwrap with the exit-status rule of the seccomp filter).
   */
  readonly signalExitCodes: boolean;
  /**
   * True when no process of the launch can start asynchronous I/O (bwrap with the seccomp filter's
   * async-I/O rule), so a write ends inside the system call that made it (docs/runtime-lifecycle.md,
   * "Settling").
   */
  readonly asyncIoDenied: boolean;
  /**
   * True when bwrap waits, before it starts the command, for one byte on the fd right after
   * `passFds` (`--block-fd`): the spawn adds a pipe there and writes the byte once the launch's
   * groups hold every process of the chain (docs/sandbox.md, "Memory").
   */
  readonly gated: boolean;
  /** Closes what the plan opened (call right after spawn, and again harmlessly on failure). */
  release(): void;
}

/** What to launch and under which policy. */
export interface LaunchRequest {
  /**
   * `node`: the command is the Node binary, so the node-permission fallback can add its flags.
   * `exec`: any other command (bash); only an OS backend can confine it.
   */
  readonly kind: 'node' | 'exec';
  readonly command: string;
  readonly args: readonly string[];
  readonly policy: SandboxPolicy;
  readonly mode: SandboxMode;
  /**
   * The lowest fd number the plan may use in the child for its own fds (`passFds`): the caller puts
   * its own extra stdio entries first (e.g. fd 3 = control channel, so this is 4).
   */
  readonly firstFreeFd: number;
  /**
   * Host paths the launched runtime itself must read (e.g. a bootstrap file and the modules it
   * imports), made readable read-only under every backend. For `kind: 'node'` the entry script and
   * files preloaded with `-r`/`--require`/`--import`/`--loader` are added automatically when given as
   * absolute paths of existing files (the file alone, not its directory). Never put model-controlled
   * paths here.
   */
  readonly runtimeReadPaths?: readonly string[];
  /** Size of bwrap's private /tmp in bytes (default SANDBOX_TMP_MAX_BYTES); ignored by other backends. */
  readonly tmpMaxBytes?: number;
  /**
   * Make the exit status truthful under bwrap: a process in the sandbox that calls exit with a status
   * of 129 or more is killed instead, so 128 + N means a real signal N (see LaunchPlan.signalExitCodes).
   */
  readonly truthfulExit?: boolean;
  /**
   * Under bwrap, deny creating user namespaces (seccomp): a process then cannot gain capabilities
   * over files its uid owns. The persistent bash asks for it (docs/minimal-tools.md, "Private channels").
   */
  readonly denyUserNamespaces?: boolean;
  /**
   * Under bwrap, hold the command until the spawn has put the process chain into the launch's groups
   * (see LaunchPlan.gated). For a command that runs at once (bash); a runtime's child waits for its
   * program on stdin anyway, and the spawner cannot pass the extra fd.
   */
  readonly gated?: boolean;
}

/**
 * Implemented in `./index.ts`:
 *   planLaunch(request: LaunchRequest): Promise<LaunchPlan>
 * rejects with SandboxUnavailableError (code SANDBOX_UNAVAILABLE) when mode is `required` and no
 * available backend enforces both fs and network confinement for that kind of command, and with
 * ConfigError (code CONFIG) for caller misuse: a missing or relative cwd, a relative policy path, an
 * invalid env entry, `firstFreeFd` below 3.
 */
export type PlanLaunch = (request: LaunchRequest) => Promise<LaunchPlan>;
