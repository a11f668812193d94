// Phase tracing of one run's process (docs/runtime-lifecycle.md, "Tracing"): timestamps of the
// child's life from spawn to cleanup, for the profile script and the bench. Off unless the runtime was
// given `onPhases` or the environment has PTC_TRACE=phases; when off, no child carries a recorder and
// every mark is one `undefined` check.

/** The phases of a child's life, in the order they normally happen. */
export const RUN_PHASES = [
  /** The child object was created (pool fill or on demand). */
  'spawn',
  /**
   * The launch has its process: planned and spawned. By the host's own `spawn()` its event loop was
   * blocked for most of the time from `spawn` to here; through the spawner it was not.
   */
  'spawned',
  /** The bootstrap said `ready`. */
  'ready',
  /** A run took the child. */
  'take',
  /** The program's `run` frame was written. */
  'sent',
  /** The program's `done` frame arrived. */
  'done',
  /** SIGKILL was sent to the tree. */
  'kill',
  /** The sandbox's pid namespace held nothing that can run (or the full wait ended). */
  'empty',
  /** The run's result was handed back to the caller. */
  'result',
  /** The spawned process's exit event. */
  'exit',
  /** The private temp dir was removed (or there was none). */
  'tmp',
  /** Cleanup finished: streams closed, pids group removed. */
  'cleaned',
] as const;

export type RunPhase = (typeof RUN_PHASES)[number];

/** One child's phases: `performance.now()` milliseconds per phase reached (first time only). */
export interface PhaseTrace {
  /** The spawned pid, when there was one. */
  readonly pid: number | undefined;
  /**
   * How the child settled: `frozen` (its freezer group frozen, then everything killed), `fast`
   * (namespace verified past user space) or `wait` (the full wait for the exit).
   */
  readonly settle: 'frozen' | 'fast' | 'wait' | undefined;
  readonly at: Readonly<Partial<Record<RunPhase, number>>>;
}

/** Records one child's phases; created only when tracing is on. */
export class PhaseRecorder {
  readonly #at: Partial<Record<RunPhase, number>> = {};
  readonly #sink: (trace: PhaseTrace) => void;
  #settle: 'frozen' | 'fast' | 'wait' | undefined;
  #pid: number | undefined;

  constructor(sink: (trace: PhaseTrace) => void) {
    this.#sink = sink;
  }

  mark(phase: RunPhase): void {
    if (this.#at[phase] !== undefined) return;
    this.#at[phase] = performance.now();
    // The cleanup may end before the runtime hands the result back (after the full wait).
    if (phase === 'result' && this.#at.cleaned !== undefined) this.#emit();
  }

  pid(pid: number | undefined): void {
    this.#pid = pid;
  }

  settled(how: 'frozen' | 'fast' | 'wait'): void {
    this.#settle ??= how;
  }

  /** Marks the cleanup done; the trace goes to the sink once the result was handed back too. */
  finish(): void {
    this.mark('cleaned');
    if (this.#at.result !== undefined) this.#emit();
  }

  /** Only children that ran a program are reported. */
  #emit(): void {
    if (this.#at.take === undefined) return;
    this.#sink({ pid: this.#pid, settle: this.#settle, at: { ...this.#at } });
  }
}

/** The sink PTC_TRACE=phases installs: one line per run on stderr, milliseconds from the take. */
export function stderrPhaseSink(trace: PhaseTrace): void {
  const origin = trace.at.take ?? 0;
  const parts = RUN_PHASES.filter((phase) => trace.at[phase] !== undefined).map(
    (phase) => `${phase}=${((trace.at[phase] as number) - origin).toFixed(2)}`,
  );
  process.stderr.write(`ptc-trace pid=${String(trace.pid)} settle=${trace.settle ?? '-'} ${parts.join(' ')}\n`);
}

/** The sink tracing uses for a runtime: its own option first, else PTC_TRACE=phases, else none. */
export function phaseSinkOf(option: ((trace: PhaseTrace) => void) | undefined): ((trace: PhaseTrace) => void) | undefined {
  if (option !== undefined) return option;
  return process.env['PTC_TRACE']?.split(',').includes('phases') === true ? stderrPhaseSink : undefined;
}
