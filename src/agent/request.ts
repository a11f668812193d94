// A model request is a pure function of the session log lines before it. The loop builds every
// request with `buildRequest(events)`, and `ptc sessions show --request` uses the same function, so
// reconstruction cannot drift from what was sent.

import type { ModelMessage, ToolModelMessage } from 'ai';
import { ConfigError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { SessionEvent } from '../session/events.js';

export interface ModelRequest {
  readonly step: number;
  readonly system: string;
  /** Tool names exactly as sent, in order. */
  readonly tools: readonly string[];
  /** The tool definitions as sent (name, description, inputSchema). */
  readonly toolSchemas: readonly JsonValue[];
  readonly messages: ModelMessage[];
}

/**
 * Rebuilds request `step` from the events of a session: the `llm/request` line of that step gives
 * the system prompt and tools; the messages come from every line before it. Tool results of a step
 * follow the call order of the response that asked for them; deferred contexts follow all results
 * of their step; dispatch events of programs never enter history.
 */
export function buildRequest(events: readonly SessionEvent[], step: number): ModelRequest {
  const at = events.findIndex((e) => e.type === 'llm/request' && e.step === step);
  if (at < 0) throw new ConfigError(`The session has no request for step ${step}; steps are numbered from 1.`);
  const header = events[at] as Extract<SessionEvent, { type: 'llm/request' }>;
  return {
    step,
    system: header.system,
    tools: header.tools,
    toolSchemas: header.toolSchemas ?? [],
    messages: buildMessages(events.slice(0, at)),
  };
}

/**
 * The conversation history encoded by a prefix of the log. Compactions in it apply (docs/compaction.md):
 * every pruned result enters as its stub, and the latest summary stands for all messages before the
 * response of its `keepFromStep`, so a rebuilt request is the one sent after the compaction.
 */
export function buildMessages(events: readonly SessionEvent[]): ModelMessage[] {
  const stubs = new Map<string, string>();
  let summary: Extract<SessionEvent, { type: 'context/compaction' }> | undefined;
  events.forEach((event) => {
    if (event.type !== 'context/compaction') return;
    for (const p of event.pruned) stubs.set(p.id, p.stub);
    if (event.summary !== undefined) summary = event;
  });
  let from = 0;
  const messages: ModelMessage[] = [];
  if (summary !== undefined) {
    const cut = summary.keepFromStep;
    const at = events.findIndex((e) => e.type === 'llm/response' && e.step === cut);
    // No kept response (everything was summarised): the history starts after the compaction line.
    from = at >= 0 ? at : events.indexOf(summary) + 1;
    messages.push({ role: 'user', content: summary.summary ?? '' });
  }
  let pendingCalls: Extract<SessionEvent, { type: 'llm/response' }>['toolCalls'] = [];
  let results = new Map<string, Extract<SessionEvent, { type: 'tool/result' }>>();
  let deferred: string[] = [];

  const closeStep = () => {
    if (pendingCalls.length > 0) {
      const content: ToolModelMessage['content'] = [];
      for (const call of pendingCalls) {
        const result = results.get(call.id);
        content.push({
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          output: result
            ? { type: result.isError ? 'error-text' : 'text', value: stubs.get(call.id) ?? result.content }
            : { type: 'error-text', value: 'The call did not finish (the session was interrupted).' },
        });
      }
      messages.push({ role: 'tool', content });
    }
    for (const text of deferred) messages.push({ role: 'user', content: text });
    pendingCalls = [];
    results = new Map();
    deferred = [];
  };

  for (const event of events.slice(from)) {
    switch (event.type) {
      case 'user/message':
        closeStep();
        messages.push({ role: 'user', content: event.text });
        break;
      case 'llm/response': {
        closeStep();
        const parts: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
        if (event.text !== '') parts.push({ type: 'text', text: event.text });
        for (const call of event.toolCalls) parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args });
        if (parts.length > 0) messages.push({ role: 'assistant', content: parts });
        pendingCalls = event.toolCalls;
        break;
      }
      case 'tool/result':
        results.set(event.id, event);
        break;
      case 'context/deferred':
        deferred.push(event.text);
        break;
      default:
        break;
    }
  }
  closeStep();
  return messages;
}
