// What a language provider tells the shared process runtime: how to start its interpreter, how a
// program becomes what the child runs, which globals it reserves, and the words of its messages.
// Everything else (pool, sessions, limits, in-memory mode) is the same for every language.

import type { ErrorInfo } from '../errors.js';
import type { PtcLanguage, ResolvedRunSpec } from '../ptc-runtime/types.js';
import type { ChildCommand, ChildTexts } from './child-launch.js';
import type { SessionTexts } from './session-texts.js';

/** The program as the child runs it, or why it cannot run (checked on the host, before any child). */
export type PreparedProgram = { readonly ok: true; readonly code: string } | { readonly ok: false; readonly error: ErrorInfo };

export interface ProcessLanguage<L extends PtcLanguage = PtcLanguage> {
  readonly language: L;
  /** `Node`, `Python`: in "the Node runtime failed" and "the kept Python process". */
  readonly name: string;
  /** Globals the child defines itself (or words the language reserves); bindings cannot take them. */
  readonly reservedGlobals: readonly string[];
  /** Checks a resolved request may still fail in this language (names it cannot spell); throws ConfigError. */
  checkSpec?(spec: ResolvedRunSpec): void;
  /**
   * `keep`: the program runs in a kept namespace (in-memory mode), so its top-level names must persist;
   * `bindings`: the run's, which a kept program may receive as parameters (Node: top-level-names.ts).
   */
  prepare(program: string, keep: boolean, bindings: ResolvedRunSpec['bindings']): PreparedProgram;
  /**
   * What to start; may detect the interpreter first (and reject with RUNTIME_UNAVAILABLE). `ahead`:
   * the child is started for the pool, before a run needs it, so it may spend time before `ready`
   * that makes its run faster (the Node child's warm-up); a run that started its own child waits.
   */
  command(ahead: boolean): ChildCommand | Promise<ChildCommand>;
  readonly childTexts: ChildTexts;
  readonly sessionTexts: SessionTexts;
  /** "<notStarted> did not start within the N ms deadline": `the program's process`. */
  readonly notStarted: string;
}
