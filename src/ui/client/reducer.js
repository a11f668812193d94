// The cards of a session as a pure function of its events (docs/ui.md, "Cards are events"). Live
// events and a past session's log go through this one reducer, so a replay cannot drift from what
// was shown live. No DOM here: the Node tests import it as it is.

/**
 * @typedef {{ id: string, tool: string, args: unknown, start: number, end?: number, content?: string, isError?: boolean }} SubCall
 * @typedef {{ kind: 'turn', key: string, resumed: boolean, preset: string, model: string, mode: string, ts: number }
 *   | { kind: 'user', key: string, text: string }
 *   | { kind: 'assistant', key: string, step: number, text: string }
 *   | { kind: 'tool', key: string, id: string, name: string, args: unknown, start: number, end?: number,
 *       status: 'running' | 'ok' | 'error', content?: string, error?: { code: string, message: string },
 *       program?: string, description?: string, subCalls: SubCall[] }
 *   | { kind: 'approval', key: string, id: string, tool: string, args: unknown, parentId?: string,
 *       alwaysAllow?: string, decision?: 'allow' | 'allow-tool' | 'allow-always' | 'deny', by?: string, reason?: string }
 *   | { kind: 'plan', key: string, id: string, markdown: string, steps: string[], decision?: 'approved' | 'sent-back' | 'unreviewed', comment?: string, error?: string }
 *   | { kind: 'notice', key: string, tone: 'error' | 'info', text: string }
 *   | { kind: 'end', key: string, reason: string, steps: number, error?: string }} Item
 * @typedef {{ tokens: number, window?: number, reported: boolean }} Meter the context meter of the latest request (docs/compaction.md)
 * @typedef {{ content: string, status: 'pending' | 'in_progress' | 'completed' }} Todo
 * @typedef {{ items: Item[], count: number, open: boolean, meter?: Meter, planMode: boolean, todos: Todo[], todoArgs: Record<string, Todo[]> }} SessionView
 *   planMode: the mode the log is in (docs/plan-mode.md); todos: the todo list as last set (a todo call, an approved plan)
 */

/** @returns {SessionView} */
export function emptyView() {
  return { items: [], count: 0, open: false, planMode: false, todos: [], todoArgs: {} };
}

/** All events at once (a replay): the same fold as live. */
export function viewOf(events) {
  return events.reduce(applyEvent, emptyView());
}

/**
 * The view after one more event. Returns a new view; items that change are new objects, the others
 * are shared, so a renderer can tell what changed.
 * @param {SessionView} view
 * @param {any} event a session log line (README, "Session log")
 * @returns {SessionView}
 */
export function applyEvent(view, event) {
  const n = view.count;
  const ts = Date.parse(event.ts);
  const next = { ...view, count: n + 1 };
  const add = (item) => ({ ...next, items: [...view.items, item] });
  const update = (key, change) => {
    const at = view.items.findIndex((item) => item.key === key);
    if (at < 0) return next;
    const items = view.items.slice();
    items[at] = change(items[at]);
    return { ...next, items };
  };
  switch (event.type) {
    case 'session/start':
    case 'session/resume':
      return {
        ...add({ kind: 'turn', key: `turn-${n}`, resumed: event.type === 'session/resume', preset: event.preset, model: event.model, mode: event.mode, ts }),
        open: true,
      };
    case 'user/message':
      return add({ kind: 'user', key: `user-${n}`, text: event.text });
    case 'llm/request':
      return event.context ? { ...next, meter: { tokens: event.context.estimatedTokens, ...(event.context.window ? { window: event.context.window } : {}), reported: false } } : next;
    case 'llm/response': {
      // The provider's count, when it gave one, replaces the estimate.
      const input = event.usage?.inputTokens;
      const metered = input !== undefined && view.meter ? { ...next, meter: { ...view.meter, tokens: input + (event.usage.outputTokens ?? 0), reported: true } } : next;
      return event.text.trim() === '' ? metered : { ...metered, items: [...view.items, { kind: 'assistant', key: `text-${n}`, step: event.step, text: event.text }] };
    }
    case 'context/compaction':
      return add({
        kind: 'notice',
        key: `notice-${n}`,
        tone: 'info',
        text: `Context compacted (${event.trigger}): ${event.pruned.length} old result${event.pruned.length === 1 ? '' : 's'} pruned${event.summary !== undefined ? `, steps before ${event.keepFromStep} summarised` : ''}; about ${event.tokensBefore} → ${event.tokensAfter} tokens.`,
      });
    case 'context/compaction-failed':
      return add({ kind: 'notice', key: `notice-${n}`, tone: 'error', text: `Compaction failed, nothing changed: ${event.message}` });
    case 'tool/call': {
      const args = event.args;
      // A proposed plan is a card of its own, with the page's review buttons (docs/plan-mode.md).
      if (event.name === 'plan_propose' && args !== null && typeof args === 'object') {
        return add({ kind: 'plan', key: `plan-${event.id}`, id: event.id, markdown: String(args.markdown ?? ''), steps: Array.isArray(args.steps) ? args.steps.map(String) : [] });
      }
      // A todo call's list becomes the panel's once its result says it was accepted.
      const listed = event.name === 'todo' ? todosIn(args) : undefined;
      const todoArgs = listed !== undefined ? { todoArgs: { ...view.todoArgs, [event.id]: listed } } : {};
      const isProgram = event.name === 'run_code' && args !== null && typeof args === 'object';
      return {
        ...add({
          kind: 'tool',
          key: `tool-${event.id}`,
          id: event.id,
          name: event.name,
          args,
          start: ts,
          status: 'running',
          subCalls: [],
          ...(isProgram && typeof args.code === 'string' ? { program: args.code } : {}),
          ...(isProgram && typeof args.description === 'string' ? { description: args.description } : {}),
        }),
        ...todoArgs,
      };
    }
    case 'tool/ptc-dispatch-start':
      return update(`tool-${event.parentId}`, (card) => ({
        ...card,
        subCalls: [...card.subCalls, { id: event.id, tool: event.tool, args: event.args, start: ts }],
      }));
    case 'tool/ptc-dispatch': {
      const listed = event.tool === 'todo' && !event.isError ? todosIn(event.args) : undefined;
      const settled = update(`tool-${event.parentId}`, (card) => {
        const known = card.subCalls.some((s) => s.id === event.id);
        // A settle without its start (a log from before start events existed) still gets a row.
        const subCalls = known ? card.subCalls : [...card.subCalls, { id: event.id, tool: event.tool, args: event.args, start: ts }];
        return {
          ...card,
          subCalls: subCalls.map((s) => (s.id === event.id ? { ...s, end: ts, content: event.content, isError: event.isError } : s)),
        };
      });
      return listed !== undefined ? { ...settled, todos: listed } : settled;
    }
    case 'tool/result':
      // A plan_propose that failed (bad arguments) shows its error on the card; a reviewed one has its plan/review.
      if (view.items.some((item) => item.key === `plan-${event.id}`)) return event.isError ? update(`plan-${event.id}`, (card) => ({ ...card, error: event.content })) : next;
      return {
        ...update(`tool-${event.id}`, (card) => ({
          ...card,
          end: ts,
          status: event.isError ? 'error' : 'ok',
          content: event.content,
          ...(event.error ? { error: event.error } : {}),
        })),
        ...(!event.isError && view.todoArgs[event.id] !== undefined ? { todos: view.todoArgs[event.id] } : {}),
      };
    case 'tool/approval':
      if (event.stage === 'request') {
        return add({ kind: 'approval', key: `approval-${event.id}`, id: event.id, tool: event.tool, args: event.args, ...(event.parentId ? { parentId: event.parentId } : {}), ...(event.alwaysAllow ? { alwaysAllow: event.alwaysAllow } : {}) });
      }
      // An answer by the session (allowed earlier for the tool) has no request line: show it as a settled card.
      if (!view.items.some((item) => item.key === `approval-${event.id}`)) {
        return add({ kind: 'approval', key: `approval-${event.id}`, id: event.id, tool: event.tool, args: null, ...(event.parentId ? { parentId: event.parentId } : {}), decision: event.decision, by: event.by, ...(event.reason ? { reason: event.reason } : {}) });
      }
      return update(`approval-${event.id}`, (card) => ({ ...card, decision: event.decision, by: event.by, ...(event.reason ? { reason: event.reason } : {}) }));
    case 'plan/mode':
      return { ...next, planMode: event.active };
    case 'plan/review': {
      const reviewed = update(`plan-${event.id}`, (card) => ({ ...card, decision: event.decision, ...(event.comment ? { comment: event.comment } : {}) }));
      return event.decision === 'approved' && Array.isArray(event.steps) ? { ...reviewed, todos: event.steps.map((content) => ({ content, status: 'pending' })) } : reviewed;
    }
    case 'llm/error':
      return add({ kind: 'notice', key: `notice-${n}`, tone: 'error', text: `Model request failed at step ${event.step}: ${event.message}` });
    case 'context/deferred':
      return add({ kind: 'notice', key: `notice-${n}`, tone: 'info', text: `Context from ${event.source}: ${event.text}` });
    case 'session/end':
      return { ...add({ kind: 'end', key: `end-${n}`, reason: event.reason, steps: event.steps, ...(event.error ? { error: event.error } : {}) }), open: false };
    default:
      return next;
  }
}

/** The items of a todo call's arguments, or undefined when they are not a list. */
function todosIn(args) {
  const list = args !== null && typeof args === 'object' ? args.todos : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.filter((t) => t && typeof t.content === 'string').map((t) => ({ content: t.content, status: t.status }));
}

/** `context 41% of 32k` (docs/compaction.md); tokens only when the window is not known. */
export function meterText(meter) {
  const k = (n) => (n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`);
  if (!meter.window) return `context ${k(meter.tokens)} tokens`;
  const percent = meter.tokens <= 0 ? 0 : Math.max(1, Math.round((meter.tokens / meter.window) * 100));
  return `context ${percent}% of ${k(meter.window)}`;
}

/** `line:column` of a failed program, from the `(program.ts:L:C)` its error message ends with. */
export function programPosition(message) {
  const match = /program\.ts:(\d+):(\d+)/.exec(message ?? '');
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/**
 * Bars of a run_code card's waterfall: each sub-call's offset and width as percentages of the
 * card's span (its call to its result, or to the latest time seen while it runs).
 */
export function waterfall(card, now) {
  const end = card.end ?? Math.max(now ?? 0, ...card.subCalls.map((s) => s.end ?? s.start));
  const span = Math.max(1, end - card.start);
  return card.subCalls.map((s) => {
    const stop = s.end ?? end;
    return {
      id: s.id,
      left: Math.min(100, ((s.start - card.start) / span) * 100),
      width: Math.max(0.5, ((stop - s.start) / span) * 100),
      ms: s.end !== undefined ? s.end - s.start : undefined,
    };
  });
}
