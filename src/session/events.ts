// The session log's line types (README, "Session log"). Every line is one JSON object with `type` and `ts`.
// A request is a pure function of the lines before it: see src/agent/ for how messages are rebuilt.

import type { JsonValue } from '../json.js';

export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
}

/** How full a request is (docs/compaction.md). */
export interface ContextMeter {
  /** Estimated tokens of system prompt, tool definitions and messages. */
  estimatedTokens: number;
  /** The model's context window in tokens, when known (catalog, `contextWindow`, `--context-window`). */
  window?: number;
}

/** One tool result a compaction replaced by a stub. */
export interface PrunedResult {
  id: string;
  /** The text the model sees instead of the result. */
  stub: string;
}

export interface LoggedToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
}

export type SessionEndReason = 'completed' | 'max-steps' | 'aborted' | 'error';

/** What a goal may spend (docs/goals.md): rounds always, tokens and wall time when given. */
export interface GoalBudget {
  maxRounds: number;
  maxTokens?: number;
  maxTimeMs?: number;
}

/** What is left of a goal's budget when a round starts. */
export interface GoalBudgetLeft {
  rounds: number;
  tokens?: number;
  timeMs?: number;
}

export type GoalAbandonReason = 'max-rounds' | 'max-tokens' | 'max-time' | 'error';

/**
 * Present only on a line the writer had to shrink to fit MAX_SESSION_LINE_BYTES: which fields were cut
 * (JSON pointers into the event) and which were emptied outright. Such a line is no longer byte-exact.
 */
export interface TruncationNote {
  /** Size of the line before shrinking, in bytes (LF included). */
  readonly originalBytes: number;
  /** String fields cut short, each ending with a marker saying how much was kept (at most 100 listed). */
  readonly fields: string[];
  /** Top-level fields replaced by an empty value of their kind (`[]`, `{}`, a marker string) because cutting strings was not enough. */
  readonly omitted?: string[];
}

/** Fields any line may carry besides those of its type. */
export interface SessionLineMeta {
  truncated?: TruncationNote;
}

export type SessionEvent = SessionLineMeta &
  (
    | {
        type: 'session/start';
        ts: string;
        sessionId: string;
        preset: string;
        cwd: string;
        model: string;
        mode: 'native' | 'ptc';
        /** The writing process; with `host`, lets `ptc sessions list` tell a running session from a crashed one. */
        pid?: number;
        host?: string;
        /** A subagent's: the session and the `task` call that started it (docs/subagents.md). */
        parent?: { sessionId: string; toolCallId: string };
      }
    | {
        /**
         * A later turn of the same session (`ptc run --resume`): the process, preset and model of this
         * turn; a `user/message` follows. Step numbers continue from the turns before (docs/sessions.md).
         */
        type: 'session/resume';
        ts: string;
        preset: string;
        model: string;
        mode: 'native' | 'ptc';
        pid?: number;
        host?: string;
      }
    | { type: 'user/message'; ts: string; text: string }
    | {
        type: 'llm/request';
        ts: string;
        step: number;
        tools: string[];
        system: string;
        toolSchemas?: JsonValue[];
        /** The meter before sending (docs/compaction.md): the request's estimated tokens and the model's window when known. */
        context?: ContextMeter;
      }
    | { type: 'llm/response'; ts: string; step: number; text: string; toolCalls: LoggedToolCall[]; usage: Usage; finishReason?: string }
    | { type: 'tool/call'; ts: string; id: string; name: string; args: JsonValue }
    | { type: 'tool/ptc-dispatch-start'; ts: string; parentId: string; id: string; tool: string; args: JsonValue }
    | { type: 'tool/ptc-dispatch'; ts: string; parentId: string; id: string; tool: string; args: JsonValue; content: string; isError: boolean }
    | {
        type: 'tool/result';
        ts: string;
        id: string;
        name: string;
        /** What the model saw: for a spilled result, the preview naming the file. */
        content: string;
        isError: boolean;
        error?: { code: string; message: string };
        /** The content was over MAX_TOOL_RESULT_CHARS and is saved whole here (docs/sessions.md, "Spill"). */
        spill?: { path: string; bytes: number; totalBytes: number };
      }
    | {
        /** A call that needed a person's yes (docs/approvals.md): the request, then its answer. */
        type: 'tool/approval';
        ts: string;
        stage: 'request' | 'answer';
        id: string;
        tool: string;
        /** A program's sub-call: its run_code call. */
        parentId?: string;
        /** request: the call's arguments. */
        args?: JsonValue;
        /** request: why it asks beyond the policy (a protected path, a program no sandbox holds). */
        why?: string;
        /** request: the rule an `allow-always` answer would save (`bash: npm test`); absent where none can be. */
        alwaysAllow?: string;
        /** answer: what was decided, by whom, and the reason the model sees on a deny. */
        decision?: 'allow' | 'allow-tool' | 'allow-always' | 'deny';
        by?: 'person' | 'session' | 'policy' | 'rule';
        reason?: string;
      }
    | { type: 'context/deferred'; ts: string; step: number; source: string; text: string }
    /**
     * Plan mode turned on or off (docs/plan-mode.md): `flag` (--plan), `user` (/plan, the UI toggle,
     * an ACP set_mode) or `approval` (an approved plan turns it off). The last one is the mode on resume.
     */
    | { type: 'plan/mode'; ts: string; active: boolean; by: 'flag' | 'user' | 'approval' }
    /**
     * A person's answer to a plan_propose call `id`: `approved` (its `steps` became the todo list),
     * `sent-back` with their `comment`, or `unreviewed` when no one could be asked (`ptc run`).
     */
    | { type: 'plan/review'; ts: string; id: string; decision: 'approved' | 'sent-back' | 'unreviewed'; steps?: string[]; comment?: string }
    /** A goal worked in rounds (docs/goals.md): its objective, check command and budget. */
    | { type: 'goal/set'; ts: string; objective: string; check?: string; budget: GoalBudget }
    /** A round (a turn of its own) starts, with the budget left; `resumed` when it re-enters an interrupted round. */
    | { type: 'goal/round'; ts: string; round: number; left: GoalBudgetLeft; resumed?: boolean }
    /** The check command ran after the model called goal_done. */
    | { type: 'goal/check'; ts: string; round: number; command: string; exitCode: number | null; passed: boolean; output: string }
    | { type: 'goal/met'; ts: string; round: number; evidence: string }
    | { type: 'goal/abandoned'; ts: string; round: number; reason: GoalAbandonReason; message: string }
    /**
     * A compaction (docs/compaction.md): from this line on, the pruned results enter requests as their
     * stubs and, with `summary`, every message before the response of step `keepFromStep` is replaced
     * by the one user message `summary`. Requests are rebuilt from these fields, never recomputed.
     */
    | {
        type: 'context/compaction';
        ts: string;
        /** The step whose request comes next. */
        step: number;
        trigger: 'auto' | 'manual';
        /** Tool results replaced by a one-line stub naming the file with their full text. */
        pruned: PrunedResult[];
        /** The user message that stands for the summarised part, exactly as sent. */
        summary?: string;
        /** With `summary`: the first step whose response is kept. */
        keepFromStep?: number;
        focus?: string;
        /** Estimated tokens of the next request before and after. */
        tokensBefore: number;
        tokensAfter: number;
        /** Usage of the summary call. */
        usage?: Usage;
      }
    /** A compaction that failed and changed nothing (the summary call errored, came back empty or too long). */
    | { type: 'context/compaction-failed'; ts: string; step: number; trigger: 'auto' | 'manual'; message: string }
    | { type: 'llm/error'; ts: string; step: number; message: string; status?: number }
    | { type: 'session/end'; ts: string; reason: SessionEndReason; steps: number; error?: string }
  );

export type SessionEventType = SessionEvent['type'];

/** An event before the writer stamps it with `ts`. */
export type SessionEventInput = SessionEvent extends infer E ? (E extends { ts: string } ? Omit<E, 'ts'> : never) : never;
