// Compaction on demand (docs/compaction.md, "On demand"): `/compact [focus]` in chat and the library
// call. It prunes and summarises whatever the fill, logs the result like an automatic compaction,
// and the next request of the session is rebuilt with it.

import type { AiSdkModel } from '../llm/ai-sdk-client.js';
import type { ModelClient } from '../llm/llm-service.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_COMPACT_THRESHOLD } from '../limits.js';
import type { SessionEvent } from '../session/events.js';
import type { SpillStore } from '../tools/spill.js';
import { compactContext, modelSummariser, type CompactOutcome, type Summarise } from './compaction.js';
import { contextWindowOf } from './context-meter.js';
import type { EventSink } from './loop.js';

export interface CompactSessionOptions {
  /** Every event of the session's log so far. */
  readonly events: readonly SessionEvent[];
  /** Where the compaction line is appended (the session's writer). */
  readonly sink: EventSink;
  /** The model that writes the summary (a client, or an AI SDK model with its `provider:id` label, for the window). */
  readonly model: ModelClient | AiSdkModel;
  /** The window in tokens when the catalog does not know the model (`--context-window`). */
  readonly contextWindow?: number;
  /** What the summary should give most room to. */
  readonly focus?: string;
  /** The session's spill store: results that were never spilled are written there before they are pruned. */
  readonly spill: SpillStore;
  readonly signal?: AbortSignal;
  /** Replaces the model call (tests of the failure paths). */
  readonly summarise?: Summarise;
}

export interface CompactSessionResult extends CompactOutcome {
  readonly window: number;
  /** Estimated tokens of the next request before the compaction. */
  readonly tokensBefore: number;
}

/** Compacts session `events` now; CONFIG when there is no request yet to compact or no known window. */
export async function compactSession(options: CompactSessionOptions): Promise<CompactSessionResult> {
  const last = [...options.events].reverse().find((e): e is Extract<SessionEvent, { type: 'llm/request' }> => e.type === 'llm/request');
  if (last === undefined) throw new ConfigError('There is nothing to compact yet: the session has sent no model request.');
  const window = contextWindowOf(options.model.label.slice(options.model.label.indexOf(':') + 1), options.contextWindow ?? last.context?.window);
  if (window === undefined) {
    throw new ConfigError(`The context window of ${options.model.label} is not known; give it with --context-window <tokens> (or contextWindow in the config file).`);
  }
  const step = Math.max(0, ...options.events.flatMap((e) => (e.type === 'llm/request' || e.type === 'llm/response' ? [e.step] : []))) + 1;
  const outcome = await compactContext({
    events: options.events,
    step,
    system: last.system,
    toolSchemas: last.toolSchemas ?? [],
    window,
    threshold: DEFAULT_COMPACT_THRESHOLD,
    trigger: 'manual',
    ...(options.focus !== undefined ? { focus: options.focus } : {}),
    spill: options.spill,
    summarise: options.summarise ?? modelSummariser(options.model, options.signal),
  });
  for (const event of outcome.events) options.sink.append(event);
  await options.sink.flush();
  const applied = outcome.events.find((e) => e.type === 'context/compaction');
  return { ...outcome, window, tokensBefore: applied?.type === 'context/compaction' ? applied.tokensBefore : outcome.tokensAfter };
}
