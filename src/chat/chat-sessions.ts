// What the chat reads of its session store (the `sessions` service, src/session/session-store.ts): the
// meter of the last request and the newest other session of the workspace, for `/resume`.

import { ConfigError } from '../errors.js';
import type { SessionEvent } from '../session/events.js';
import type { SessionStore } from '../session/session-store.js';

/**
 * The meter of the latest request (docs/compaction.md): the provider's prompt-plus-answer count when
 * it reported one, else the estimate logged with the request; with the window it was measured against.
 */
export function lastRequestMeterOf(events: readonly SessionEvent[]): { tokens: number; window?: number } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type !== 'llm/request') continue;
    const response = events.slice(i + 1).find((e) => e.type === 'llm/response' && e.step === event.step);
    const usage = response?.type === 'llm/response' ? response.usage : undefined;
    const tokens = usage?.inputTokens !== undefined ? usage.inputTokens + (usage.outputTokens ?? 0) : event.context?.estimatedTokens;
    if (tokens === undefined) return undefined;
    return { tokens, ...(event.context?.window !== undefined ? { window: event.context.window } : {}) };
  }
  return undefined;
}

/** The newest top-level session of `cwd` other than `open`; CONFIG when there is none. */
export function latestOtherSession(store: SessionStore, cwd: string, open: string | undefined): string {
  const candidates = store.list().filter((s) => s.cwd === cwd && s.parentSessionId === undefined && s.id !== open);
  const at = (s: (typeof candidates)[number]): number => Date.parse(s.lastEventAt ?? s.startedAt ?? '') || 0;
  candidates.sort((a, b) => at(b) - at(a));
  const latest = candidates[0];
  if (latest === undefined) throw new ConfigError(`No other session of ${cwd} in ${store.location}; /sessions lists them, /resume ID continues one.`);
  return latest.id;
}

/** The model id of a `provider:id` label (the model catalog's key: prices, windows). */
export function modelIdOf(label: string): string {
  return label.slice(label.indexOf(':') + 1);
}
