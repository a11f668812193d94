// Compaction (docs/compaction.md): when the next request would pass the threshold, first prune (old
// tool results become a one-line stub naming the file with their full text: no model call), then, if
// that is not enough, summarise the oldest part with one model call. Everything is decided here and
// logged as a `context/compaction` line; `buildMessages` applies the line, so a resumed session
// rebuilds exactly the request that was sent after it.

import type { ModelMessage } from 'ai';
import { todosFromSession } from '../builtin-tools/todo.js';
import { pendingPlanOf } from '../plan-mode/plan-mode.js';
import type { JsonValue } from '../json.js';
import {
  MAX_SUMMARY_WINDOW_FRACTION,
  PRUNE_KEEP_STEPS,
  PRUNE_MIN_RESULT_CHARS,
  SUMMARY_INPUT_WINDOW_FRACTION,
  SUMMARY_KEEP_STEPS,
  ESTIMATE_CHARS_PER_TOKEN,
} from '../limits.js';
import { modelClientOf, type AiSdkModel } from '../llm/ai-sdk-client.js';
import type { ModelClient } from '../llm/llm-service.js';
import type { PrunedResult, SessionEvent, SessionEventInput, Usage } from '../session/events.js';
import type { SpillStore } from '../tools/spill.js';
import { summaryMessageText, summaryRequestText, SUMMARY_SYSTEM_PROMPT } from './compaction-prompt.js';
import { estimateRequestTokens, estimateTextTokens } from './context-meter.js';
import { goalStateOf } from './goal-state.js';
import { buildMessages } from './request.js';

type CompactionEvent = Extract<SessionEventInput, { type: 'context/compaction' }>;
type FailedEvent = Extract<SessionEventInput, { type: 'context/compaction-failed' }>;

/** The one model call of a summary: the fixed system prompt and the transcript; returns the text. */
export type Summarise = (system: string, userText: string) => Promise<{ text: string; usage: Usage }>;

export interface CompactInput {
  /** The log so far. */
  readonly events: readonly SessionEvent[];
  /** The step whose request comes next. */
  readonly step: number;
  /** The next request's system prompt and tool definitions (they count against the window too). */
  readonly system: string;
  readonly toolSchemas: readonly JsonValue[];
  readonly window: number;
  /** Fraction of the window to get under. */
  readonly threshold: number;
  readonly trigger: 'auto' | 'manual';
  readonly focus?: string;
  /** Where results that were never spilled are written so their stub can name a file. */
  readonly spill: SpillStore;
  readonly summarise: Summarise;
}

export interface CompactOutcome {
  /** The lines to log, in order: a compaction, and a `context/compaction-failed` when the summary failed. */
  readonly events: (CompactionEvent | FailedEvent)[];
  /** Estimated tokens of the next request once the lines are logged. */
  readonly tokensAfter: number;
  /** Set when the summary stage failed (nothing of it applied). */
  readonly failure?: string;
}

/** Prunes, then summarises when pruning is not enough (always, for a manual compaction). */
export async function compactContext(input: CompactInput): Promise<CompactOutcome> {
  const estimateWith = (extra: readonly SessionEventInput[]): number =>
    estimateRequestTokens({ system: input.system, toolSchemas: input.toolSchemas, messages: buildMessages([...input.events, ...(extra as SessionEvent[])]) });
  const tokensBefore = estimateWith([]);
  const target = input.threshold * input.window;

  const pruned = prunePlan(input, estimateWith, target);
  const pruneEvent: CompactionEvent = { type: 'context/compaction', step: input.step, trigger: input.trigger, pruned, tokensBefore, tokensAfter: 0 };
  const afterPrune = estimateWith([pruneEvent]);
  const pruneOnly = (): CompactOutcome => ({ events: pruned.length > 0 ? [{ ...pruneEvent, tokensAfter: afterPrune }] : [], tokensAfter: afterPrune });
  if (input.trigger === 'auto' && afterPrune <= target) return pruneOnly();

  const summary = await summaryStage(input, pruneEvent);
  if (!summary.ok) {
    const failed: FailedEvent = { type: 'context/compaction-failed', step: input.step, trigger: input.trigger, message: summary.message };
    const outcome = pruneOnly();
    return { events: [...outcome.events, failed], tokensAfter: outcome.tokensAfter, failure: summary.message };
  }
  const event: CompactionEvent = {
    ...pruneEvent,
    summary: summary.text,
    keepFromStep: summary.keepFromStep,
    ...(input.focus !== undefined && input.focus.trim() !== '' ? { focus: input.focus.trim() } : {}),
    usage: summary.usage,
  };
  const tokensAfter = estimateWith([event]);
  return { events: [{ ...event, tokensAfter }], tokensAfter };
}

interface LoggedResult {
  readonly event: Extract<SessionEvent, { type: 'tool/result' }>;
  /** The step of the response that asked for it. */
  readonly step: number;
}

/** Tool results the model still sees whole, with their step, oldest first (after the latest summary cut). */
function visibleResults(events: readonly SessionEvent[]): LoggedResult[] {
  const stubbed = new Set<string>();
  let cut: { keepFromStep: number } | undefined;
  for (const e of events) {
    if (e.type !== 'context/compaction') continue;
    for (const p of e.pruned) stubbed.add(p.id);
    if (e.summary !== undefined && e.keepFromStep !== undefined) cut = { keepFromStep: e.keepFromStep };
  }
  const out: LoggedResult[] = [];
  let step = 0;
  for (const e of events) {
    if (e.type === 'llm/response') step = e.step;
    else if (e.type === 'tool/result' && !stubbed.has(e.id) && (cut === undefined || step >= cut.keepFromStep)) out.push({ event: e, step });
  }
  return out;
}

/**
 * Which results to stub: those older than the latest PRUNE_KEEP_STEPS steps, and, when that does not
 * reach `target` on an automatic compaction, older than the latest step only. The todo tool's
 * results are the plan and stay; short results would save nothing.
 */
function prunePlan(input: CompactInput, estimateWith: (extra: readonly SessionEventInput[]) => number, target: number): PrunedResult[] {
  const candidates = visibleResults(input.events).filter((r) => r.event.name !== 'todo' && r.event.content.length >= PRUNE_MIN_RESULT_CHARS);
  const steps = [...new Set(visibleResults(input.events).map((r) => r.step))];
  const stubs = new Map<string, string>();
  const stubOf = (r: LoggedResult): PrunedResult => {
    let stub = stubs.get(r.event.id);
    if (stub === undefined) {
      stub = stubText(r.event, input.spill);
      stubs.set(r.event.id, stub);
    }
    return { id: r.event.id, stub };
  };
  let plan: PrunedResult[] = [];
  for (const keep of input.trigger === 'auto' ? [PRUNE_KEEP_STEPS, 1] : [PRUNE_KEEP_STEPS]) {
    const kept = new Set(steps.slice(-keep));
    plan = candidates.filter((r) => !kept.has(r.step)).map(stubOf);
    if (estimateWith([{ type: 'context/compaction', step: input.step, trigger: input.trigger, pruned: plan, tokensBefore: 0, tokensAfter: 0 }]) <= target) break;
  }
  return plan;
}

/** The one line a pruned result becomes; a result that was never spilled is written to the spill directory first. */
function stubText(result: Extract<SessionEvent, { type: 'tool/result' }>, spill: SpillStore): string {
  const where = result.spill?.path ?? spill.writeText(`pruned-${result.id}`, result.content)?.path;
  const size = result.spill?.totalBytes ?? Buffer.byteLength(result.content, 'utf8');
  return where !== undefined
    ? `[${result.name} result pruned to save context (${size} bytes); the full text is in ${where}: read it with the read tool (offset/limit) if you need it again.]`
    : `[${result.name} result pruned to save context (${size} bytes); no copy could be kept (the spill budget is used up): run the call again if you need it.]`;
}

type SummaryStage = { ok: true; text: string; keepFromStep: number; usage: Usage } | { ok: false; message: string };

async function summaryStage(input: CompactInput, pruneEvent: CompactionEvent): Promise<SummaryStage> {
  const events = [...input.events, pruneEvent as SessionEvent];
  const visibleFrom = (() => {
    let from = 0;
    input.events.forEach((e) => {
      if (e.type === 'context/compaction' && e.summary !== undefined) {
        const at = input.events.findIndex((r) => r.type === 'llm/response' && r.step === e.keepFromStep);
        from = at >= 0 ? at : input.events.indexOf(e) + 1;
      }
    });
    return from;
  })();
  const responseSteps = input.events.slice(visibleFrom).flatMap((e) => (e.type === 'llm/response' ? [e.step] : []));
  const keep = Math.min(SUMMARY_KEEP_STEPS, responseSteps.length - 1);
  if (keep < 1 || responseSteps.length - keep < 1) {
    return { ok: false, message: 'there is nothing old enough to summarise yet (fewer than two model responses since the last compaction)' };
  }
  const keepFromStep = responseSteps[responseSteps.length - keep] as number;
  const cutAt = input.events.findIndex((e) => e.type === 'llm/response' && e.step === keepFromStep);
  // Compactions logged after the cut still apply to what comes before it (their prunes, the earlier summary).
  const laterCompactions = input.events.slice(cutAt).filter((e) => e.type === 'context/compaction');
  const old = buildMessages([...input.events.slice(0, cutAt), ...laterCompactions, pruneEvent as SessionEvent]);
  const transcript = capTranscript(renderTranscript(old), Math.floor(input.window * SUMMARY_INPUT_WINDOW_FRACTION * ESTIMATE_CHARS_PER_TOKEN));

  let answer: { text: string; usage: Usage };
  try {
    answer = await input.summarise(SUMMARY_SYSTEM_PROMPT, summaryRequestText(transcript, input.focus));
  } catch (error) {
    return { ok: false, message: `the summary call failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (answer.text.trim() === '') return { ok: false, message: 'the model returned an empty summary' };
  const maxTokens = Math.floor(input.window * MAX_SUMMARY_WINDOW_FRACTION);
  if (estimateTextTokens(answer.text) > maxTokens) {
    return { ok: false, message: `the summary is too long (about ${estimateTextTokens(answer.text)} tokens, over ${maxTokens}, ${MAX_SUMMARY_WINDOW_FRACTION * 100}% of the window)` };
  }
  const goal = goalStateOf(events);
  const todos = todosFromSession(events);
  const plan = pendingPlanOf(events);
  // Searched back past an earlier cut too: in one long turn, the message the work answers may be
  // before the first summary, and this summary replaces that one (which carried it).
  const lastUser = lastUserMessageBefore(input.events, cutAt);
  const text = summaryMessageText({
    summary: answer.text,
    ...(goal?.open === true ? { goal: goal.spec.check !== undefined ? `${goal.spec.objective}\n(check: ${goal.spec.check})` : goal.spec.objective } : {}),
    // The list exactly as the model last sent it (the todo call's `todos`).
    ...(todos !== undefined && todos.length > 0 ? { todos: JSON.stringify({ todos }) } : {}),
    // Plan mode itself is in the system prompt; the proposal under review is carried as sent (docs/plan-mode.md).
    ...(plan !== undefined ? { plan: JSON.stringify(plan) } : {}),
    ...(lastUser !== undefined ? { lastUserMessage: lastUser } : {}),
  });
  return { ok: true, text, keepFromStep, usage: answer.usage };
}

function lastUserMessageBefore(events: readonly SessionEvent[], cutAt: number): string | undefined {
  for (let i = cutAt - 1; i >= 0; i--) {
    const e = events[i];
    if (e?.type === 'user/message') return e.text;
  }
  return undefined;
}

/** The messages as plain text for the summary call (tool calls and results included). */
export function renderTranscript(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      lines.push(`[${m.role}] ${m.content}`);
      continue;
    }
    for (const part of m.content) {
      if (part.type === 'text') lines.push(`[${m.role}] ${part.text}`);
      else if (part.type === 'tool-call') lines.push(`[tool call ${part.toolName}] ${JSON.stringify(part.input)}`);
      else if (part.type === 'tool-result') {
        const out = part.output;
        lines.push(`[tool result ${part.toolName}] ${out.type === 'text' || out.type === 'error-text' ? out.value : JSON.stringify(out)}`);
      }
    }
  }
  return lines.join('\n');
}

/** Keeps the head and the tail of a transcript longer than `maxChars`, saying what was left out. */
export function capTranscript(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 3);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[… ${text.length - maxChars} characters left out …]\n${text.slice(text.length - tail)}`;
}

/** A summariser over the session's own model: one call, no tools, no retry beyond the SDK's none. */
export function modelSummariser(model: ModelClient | AiSdkModel, signal?: AbortSignal): Summarise {
  const client = modelClientOf(model);
  return async (system, userText) => {
    // No retry: a failed summary is logged and the session goes on uncompacted (docs/compaction.md).
    const result = await client.call({ system, messages: [{ role: 'user', content: userText }], tools: [], ...(signal ? { signal } : {}) }, { retry: { maxRetries: 0 } });
    return { text: result.text, usage: result.usage };
  };
}
