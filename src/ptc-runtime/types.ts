// The ptc-runtime seam: a runtime is handed a program and named async bindings, runs the program,
// and reports { value, logs, error? }. It knows nothing about tools; a Python or container runtime
// is another provider of this interface.

import type { ErrorInfo } from '../errors.js';
import type { JsonValue } from '../json.js';

export type { SandboxBackendName, SandboxEnforcement, SandboxMode, SandboxReport } from '../sandbox/index.js';
import type { SandboxMode, SandboxReport } from '../sandbox/index.js';

/** Widening of the default `workspace` policy (docs/sandbox.md) for one run. */
export interface PolicyWidening {
  readonly allowRead?: readonly string[];
  readonly allowWrite?: readonly string[];
  readonly network?: boolean;
  /** Paths kept read-only besides `.git` and `.ptc` (`--protect`; docs/sandbox.md, "Protected paths"). */
  readonly protect?: readonly string[];
  /**
   * Not a widening: the workspace and the writable roots are read-only for this run (set by run_code
   * under `--approve writes|all`, docs/approvals.md); the private temp dir stays writable.
   */
  readonly readOnlyWorkspace?: boolean;
}

/** Context handed to a binding function for one call from the program. */
export interface BindingCallContext {
  /** Aborted when the run settles (completion, deadline, abort, failure) before the call finished. */
  readonly signal: AbortSignal;
}

/** A host function the program can await. Its argument arrives as JSON; its value must be JSON (or undefined). */
export type BindingFunction = (args: JsonValue, ctx: BindingCallContext) => Promise<JsonValue | undefined>;

/** A rejected binding call becomes an instance of this class in the program, carrying the member name. */
export interface BindingErrorClass {
  /** A portable identifier; the class is a global of the program (e.g. `ToolCallError`). */
  readonly name: string;
  /** The own property that carries the member (function) name (e.g. `toolName`). */
  readonly memberNameProperty: string;
}

/** One global of the program: `global.member(args)` calls `functions[member]` on the host. */
export interface BindingNamespace {
  /** A portable identifier (e.g. `tools`). */
  readonly global: string;
  /** Member names may be any string (`"my-tool"`, `"__proto__"`): they are own members of a null-prototype object. */
  readonly functions: Readonly<Record<string, BindingFunction>>;
  readonly errorClass?: BindingErrorClass;
  /**
   * When true, a function receives every argument the program passed, as one JSON array (trailing
   * `undefined`s dropped), instead of the first alone: `sdk.search(query, options)`. Only the Node
   * runtime honours it; Python calls take one dict or keywords.
   */
  readonly argumentList?: boolean;
}

export interface RunRequest {
  /** The BODY of an async function, TypeScript or JavaScript: top-level await and return work. */
  readonly program: string;
  readonly bindings?: readonly BindingNamespace[];
  /** Absolute path of the workspace the program runs in. */
  readonly cwd: string;
  /** Wall-time deadline including awaited binding calls; default and bounds come from `timeout`. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly policy?: PolicyWidening;
  /**
   * Called with each log line as the program writes it (the line is also in the result's `logs`).
   * For front-ends that stream output; it must not throw (a throw is ignored).
   */
  readonly onLog?: (line: string) => void;
  /**
   * Only for a runtime whose `execution` is `in-memory`: the conversation this run belongs to. Runs
   * with the same key (compared by identity) share one kept process and its top-level names; runs
   * without a key, or under a stateless runtime, start fresh. A stateless runtime rejects the field.
   */
  readonly memoryKey?: object;
}

/** A request after `resolve`: validated, with deployment defaults filled in. */
export interface ResolvedRunSpec {
  readonly program: string;
  readonly bindings: readonly BindingNamespace[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onLog?: (line: string) => void;
  readonly memoryKey?: object;
  readonly policy: {
    readonly read: readonly string[];
    readonly write: readonly string[];
    readonly network: boolean;
    readonly protect: readonly string[];
    readonly readOnlyWorkspace: boolean;
  };
}

/** The outcome of one program. A failed program is a field here, never a rejection. */
export interface RunResult {
  readonly value?: JsonValue;
  readonly logs: readonly string[];
  readonly error?: ErrorInfo;
  readonly sandbox: SandboxReport;
}

export interface TimeoutDescriptor {
  readonly defaultMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * The language a runtime's programs are written in: the id of a language pack (src/languages/table.ts),
 * which gives its SDK, prompt words and runtime. The shipped ones are named; a registered pack adds its own.
 */
export type PtcLanguage = 'typescript' | 'python' | (string & {});

/**
 * `stateless` (the default): every program starts in a fresh process. `in-memory`: runs that share a
 * `memoryKey` run in one kept process whose top-level names persist until it is lost (docs/in-memory-mode.md).
 */
export type ProgramExecution = 'stateless' | 'in-memory';

export interface PtcRuntime {
  /** Selects the SDK renderer and the run_code flavour. */
  readonly language: PtcLanguage;
  /** Absent means `stateless`. */
  readonly execution?: ProgramExecution;
  /** The substrate, not its authority. */
  readonly isolation: 'process';
  /** The configured sandbox mode; what is actually enforced is reported per result. */
  readonly sandboxMode: SandboxMode;
  readonly timeout: TimeoutDescriptor;
  /** Validates caller input (rejects with CONFIG for misuse) and fills deployment defaults. */
  resolve(request: RunRequest): Promise<ResolvedRunSpec>;
  /** Runs a resolved program. Never rejects for a failed program. */
  run(spec: ResolvedRunSpec): Promise<RunResult>;
  /** In-memory execution: ends the kept process of `memoryKey` now (its conversation ended). */
  forget?(memoryKey: object): Promise<void>;
  /** Ends warm children and releases resources. */
  close(): Promise<void>;
}
