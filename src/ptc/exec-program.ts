// One program run as a caller outside the model loop sees it: the run_code call through the registry
// pipeline in a ptc scope, plus the raw run and its sub-calls gathered from the log-only events.
// `ptc exec` and `ptc mcp serve` both run programs through here (the shapes of README "ptc exec --json" and docs/mcp-server.md).

import type { Context } from '../context/context.js';
import type { ErrorInfo } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { SandboxReport } from '../ptc-runtime/types.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import type { PtcDispatchSettle, PtcDispatchStart, PtcRunEvent, RunCodeArgs } from './run-code.js';

/** One sub-call of a program as `ptc exec --json` reports it. */
export interface ExecDispatch {
  id: string;
  tool: string;
  args: JsonValue;
  isError: boolean;
  content: string;
}

/** The `ptc exec --json` object (README, "ptc exec --json"). */
export interface ExecJson {
  ok: boolean;
  value?: JsonValue;
  logs: string[];
  error: ErrorInfo | null;
  dispatches: ExecDispatch[];
  sandbox: SandboxReport;
}

export interface ExecProgramOptions {
  /**
   * The run_code arguments `{ code, description, timeoutMs? }` (docs/ptc-mode.md), as a caller received
   * them: the registry validates them like a model's, so bad ones are an INVALID_ARGS result.
   */
  readonly args: RunCodeArgs | Readonly<Record<string, unknown>>;
  /** The run_code call id; sub-calls are `<id>:ptc:<n>`. Unique among concurrent runs in one harness. */
  readonly id: string;
  readonly signal?: AbortSignal;
  /** A sub-call of this run entered the dispatch pool. */
  readonly onDispatchStart?: (event: PtcDispatchStart) => void;
  /** A sub-call of this run settled. */
  readonly onDispatch?: (event: PtcDispatchSettle) => void;
  /** The program wrote a log line (while it runs; the line is also in `json.logs`). */
  readonly onLog?: (line: string) => void;
}

export interface ExecProgramResult {
  readonly json: ExecJson;
  /** What a model would see for this run_code call (the run_code rendering, or the error text). */
  readonly content: string;
}

const NOT_RUN: SandboxReport = { backend: 'none', enforced: { fs: 'none', network: 'none', process: 'none' } };

/**
 * Runs one program through run_code in `scope`, a ptc scope (`harness.ptcScope()`). Never rejects
 * for a failed program: the failure is `json.error` and `content`.
 */
export async function execProgram(scope: Context, options: ExecProgramOptions): Promise<ExecProgramResult> {
  const { id } = options;
  const dispatches: PtcDispatchSettle[] = [];
  let run: PtcRunEvent | undefined;
  // Events of the whole container reach every listener: keep only this run's.
  const listeners = [
    scope.on('tool/ptc-dispatch-start', (event) => {
      if (event.parentId === id) options.onDispatchStart?.(event);
    }),
    scope.on('tool/ptc-dispatch', (event) => {
      if (event.parentId !== id) return;
      dispatches.push(event);
      options.onDispatch?.(event);
    }),
    ...(options.onLog
      ? [
          scope.on('tool/ptc-log', (event) => {
            if (event.id === id) options.onLog?.(event.line);
          }),
        ]
      : []),
    scope.on('tool/ptc-run', (event) => {
      if (event.id === id) run = event;
    }),
  ];
  try {
    const outcome = await scope.tools.execute(RUN_CODE_TOOL_NAME, options.args, { id, scope, ...(options.signal ? { signal: options.signal } : {}) });
    const error = outcome.isError ? (run?.result.error ?? outcome.error ?? { code: 'TOOL_FAILED', message: outcome.content }) : null;
    const value = outcome.isError ? undefined : run?.result.value;
    const json: ExecJson = {
      ok: !outcome.isError,
      ...(value !== undefined ? { value } : {}),
      logs: [...(run?.result.logs ?? [])],
      error,
      dispatches: dispatches.map(({ id: callId, tool, args: callArgs, isError, content }) => ({ id: callId, tool, args: callArgs, isError, content })),
      sandbox: run?.result.sandbox ?? NOT_RUN,
    };
    return { json, content: outcome.content };
  } finally {
    for (const dispose of listeners) void dispose();
  }
}
