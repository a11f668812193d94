// A goal's state as the session log records it (docs/goals.md): the latest `goal/set`, whether it is
// still open, the rounds it took, and what it spent. Pure functions of the log, so a session killed
// mid-goal resumes from exactly what was written.

import { ConfigError } from '../errors.js';
import type { GoalBudget, GoalBudgetLeft, SessionEvent } from '../session/events.js';

export interface GoalSpec {
  readonly objective: string;
  readonly check?: string;
  readonly budget: GoalBudget;
}

type CheckEvent = Extract<SessionEvent, { type: 'goal/check' }>;

export interface GoalState {
  readonly spec: GoalSpec;
  /** No `goal/met` or `goal/abandoned` after the `goal/set`. */
  readonly open: boolean;
  /** The number of the latest round started (0 before the first). */
  readonly lastRound: number;
  /** The check of the latest round, when it ran (a failed one sends the next round its output). */
  readonly lastCheck: CheckEvent | undefined;
  /** Tokens of every model response since the goal was set. */
  readonly tokensUsed: number;
  /** Wall time of the rounds so far: from each `goal/round` to the last line before the next one. */
  readonly timeUsedMs: number;
}

/** The latest goal of a log, or undefined when it never set one. */
export function goalStateOf(events: readonly SessionEvent[]): GoalState | undefined {
  let at = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'goal/set') {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const set = events[at] as Extract<SessionEvent, { type: 'goal/set' }>;
  let open = true;
  let lastRound = 0;
  let lastCheck: CheckEvent | undefined;
  let tokensUsed = 0;
  let timeUsedMs = 0;
  let roundStart: number | undefined;
  let lastTs: number | undefined;
  const closeRound = (): void => {
    if (roundStart !== undefined && lastTs !== undefined) timeUsedMs += Math.max(0, lastTs - roundStart);
  };
  for (const event of events.slice(at + 1)) {
    const ts = Date.parse(event.ts);
    if (event.type === 'goal/round') {
      closeRound();
      roundStart = ts;
      lastRound = event.round;
      lastCheck = undefined;
    } else if (event.type === 'goal/check' && event.round === lastRound) {
      lastCheck = event;
    } else if (event.type === 'goal/met' || event.type === 'goal/abandoned') {
      open = false;
    } else if (event.type === 'llm/response') {
      const u = event.usage;
      tokensUsed += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
    }
    if (Number.isFinite(ts)) lastTs = ts;
  }
  closeRound();
  const spec: GoalSpec = { objective: set.objective, ...(set.check !== undefined ? { check: set.check } : {}), budget: set.budget };
  return { spec, open, lastRound, lastCheck, tokensUsed, timeUsedMs };
}

/** What is left of the budget for round `round`; `rounds` counts that round itself. */
export function budgetLeft(budget: GoalBudget, round: number, tokensUsed: number, timeUsedMs: number): GoalBudgetLeft {
  return {
    rounds: budget.maxRounds - round + 1,
    ...(budget.maxTokens !== undefined ? { tokens: Math.max(0, budget.maxTokens - tokensUsed) } : {}),
    ...(budget.maxTimeMs !== undefined ? { timeMs: Math.max(0, budget.maxTimeMs - timeUsedMs) } : {}),
  };
}

/** The budget as words for the model's round message. */
export function describeBudgetLeft(left: GoalBudgetLeft): string {
  const parts = [`${left.rounds} round${left.rounds === 1 ? '' : 's'} (this one included)`];
  if (left.tokens !== undefined) parts.push(`${left.tokens} tokens`);
  if (left.timeMs !== undefined) parts.push(formatDuration(left.timeMs));
  return parts.join(', ');
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * `--max-time`: a number with a unit (`1500ms`, `90s`, `30m`, `2h`, or combined like `1h30m`); a bare
 * number is seconds. CONFIG naming the value and the accepted forms otherwise.
 */
export function parseDuration(text: string, flag = '--max-time'): number {
  const trimmed = text.trim();
  const bare = /^\d+$/.test(trimmed) ? `${trimmed}s` : trimmed;
  const parts = [...bare.matchAll(/(\d+)(ms|s|m|h)/g)];
  const total = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit!]!, 0);
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== bare || total <= 0 || !Number.isSafeInteger(total)) {
    throw new ConfigError(`${flag} must be a positive duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds), got ${JSON.stringify(text)}.`);
  }
  return total;
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s of time`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s of time` : `${Math.floor(m / 60)}h ${m % 60}m of time`;
}
