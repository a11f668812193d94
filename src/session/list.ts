// `ptc sessions list`: one summary per log in the session directory, newest first.

import os from 'node:os';

import { HarnessError } from '../errors.js';
import type { SessionEndReason, SessionEvent } from './events.js';
import { listSessionFiles } from './paths.js';
import { readSession } from './reader.js';

/**
 * How a session's latest turn ended: its `session/end` reason; without that line, `running` (its process is alive
 * on this host), `crashed` (its process is gone, or the log ends in a torn line), or `incomplete`
 * (no way to tell: the log names no process, or one on another host).
 */
export type SessionOutcome = SessionEndReason | 'running' | 'crashed' | 'incomplete';

export interface SessionSummary {
  /** The file name without `.jsonl`: what `ptc sessions show` takes. */
  readonly id: string;
  readonly file: string;
  /** ISO time of `session/start` (else of the first event); undefined for an empty log. */
  readonly startedAt: string | undefined;
  readonly preset: string | undefined;
  readonly model: string | undefined;
  /** The workspace of `session/start`. */
  readonly cwd: string | undefined;
  /** A subagent's parent session (`session/start.parent`). */
  readonly parentSessionId: string | undefined;
  /** Turns of the conversation: the first, plus one per `session/resume`. */
  readonly turns: number;
  /** ISO time of the last event; undefined for an empty log. */
  readonly lastEventAt: string | undefined;
  /** The highest step any event names (step numbers continue across turns). */
  readonly steps: number;
  readonly outcome: SessionOutcome;
  /** The reader's warnings (torn or invalid lines). */
  readonly warnings: string[];
}

export interface ListSessionsOptions {
  /** Whether a process of this host is alive; default `process.kill(pid, 0)`. */
  readonly isProcessAlive?: (pid: number) => boolean;
  /** Default `os.hostname()`. */
  readonly hostname?: string;
}

/** Summaries of every log in `dir`, newest first; a missing directory has none. Torn or unreadable logs are listed with warnings. */
export function listSessions(dir: string, options: ListSessionsOptions = {}): SessionSummary[] {
  const summaries = listSessionFiles(dir).map(({ id, file }) => {
    try {
      const { events, warnings } = readSession(file);
      return summarizeSession(id, file, events, warnings, options);
    } catch (error) {
      if (!(error instanceof HarnessError)) throw error;
      return summarizeSession(id, file, [], [error.message], options);
    }
  });
  return summaries.sort(newestFirst);
}

/** The summary of one session from its events and the reader's warnings. */
export function summarizeSession(
  id: string,
  file: string,
  events: readonly SessionEvent[],
  warnings: string[],
  options: ListSessionsOptions = {},
): SessionSummary {
  let start: Extract<SessionEvent, { type: 'session/start' }> | undefined;
  // The latest turn (its start or resume line) and whether a session/end closed it.
  let turn: Extract<SessionEvent, { type: 'session/start' | 'session/resume' }> | undefined;
  let end: Extract<SessionEvent, { type: 'session/end' }> | undefined;
  let turns = 0;
  let maxStep = 0;
  for (const event of events) {
    if (event.type === 'session/start' || event.type === 'session/resume') {
      if (event.type === 'session/start') start ??= event;
      turn = event;
      end = undefined;
      turns++;
    } else if (event.type === 'session/end') {
      end = event;
      maxStep = Math.max(maxStep, event.steps);
    } else if ('step' in event) maxStep = Math.max(maxStep, event.step);
  }
  const outcome: SessionOutcome = end ? end.reason : liveness(turn, warnings, options);
  return {
    id,
    file,
    startedAt: start?.ts ?? events[0]?.ts,
    preset: start?.preset,
    model: start?.model,
    cwd: start?.cwd,
    parentSessionId: start?.parent?.sessionId,
    turns: Math.max(turns, events.length > 0 ? 1 : 0),
    lastEventAt: events.at(-1)?.ts,
    steps: maxStep,
    outcome,
    warnings,
  };
}

function liveness(
  start: Extract<SessionEvent, { type: 'session/start' | 'session/resume' }> | undefined,
  warnings: readonly string[],
  options: ListSessionsOptions,
): SessionOutcome {
  const hostname = options.hostname ?? os.hostname();
  if (start?.pid !== undefined && start.host === hostname) {
    return (options.isProcessAlive ?? isProcessAlive)(start.pid) ? 'running' : 'crashed';
  }
  return warnings.some((w) => w.includes('torn last line')) ? 'crashed' : 'incomplete';
}

/** Whether a process of this host has `pid` (one of another user counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function newestFirst(a: SessionSummary, b: SessionSummary): number {
  const time = (s: SessionSummary): number => (s.startedAt === undefined ? Number.NEGATIVE_INFINITY : Date.parse(s.startedAt) || 0);
  const byTime = time(b) - time(a);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const COLUMNS = ['ID', 'STARTED', 'PRESET', 'MODEL', 'STEPS', 'OUTCOME'] as const;

/**
 * An aligned table for `ptc sessions list`, times in UTC. A session whose log had warnings gets a
 * `*` after its outcome and a footnote. Ends with LF.
 */
export function formatSessionList(summaries: readonly SessionSummary[]): string {
  if (summaries.length === 0) return 'No sessions.\n';
  const rows = summaries.map((s) => [
    s.id,
    s.startedAt === undefined ? '-' : formatTime(s.startedAt),
    s.preset ?? '-',
    s.model ?? '-',
    String(s.steps),
    s.outcome + (s.warnings.length > 0 ? '*' : ''),
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (COLUMNS[i] === 'STEPS' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = [render(COLUMNS), ...rows.map(render)];
  if (summaries.some((s) => s.warnings.length > 0)) {
    lines.push('', '* the log has skipped or torn lines; `ptc sessions show <id>` lists them.');
  }
  return lines.join('\n') + '\n';
}

/** `2026-11-29T14:15:30.123Z` -> `2026-11-29 14:15:30Z`; anything unparsable is shown as it is. */
export function formatTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
