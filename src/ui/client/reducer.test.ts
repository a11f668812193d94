import { describe, expect, it } from 'vitest';

// @ts-expect-error -- a plain browser ES module without declarations; these tests pin its behaviour.
import { applyEvent, emptyView, meterText, programPosition, viewOf, waterfall } from './reducer.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, 0, ms)).toISOString();

const events = [
  { type: 'session/start', ts: at(0), sessionId: 's', preset: 'ptc', cwd: '/w', model: 'm', mode: 'ptc' },
  { type: 'user/message', ts: at(1), text: 'go' },
  { type: 'llm/request', ts: at(2), step: 1, tools: ['run_code'], system: '' },
  { type: 'llm/response', ts: at(3), step: 1, text: '', toolCalls: [], usage: {} },
  { type: 'tool/call', ts: at(100), id: 'rc', name: 'run_code', args: { code: 'return 1;', description: 'two reads' } },
  { type: 'tool/ptc-dispatch-start', ts: at(200), parentId: 'rc', id: 'rc:ptc:1', tool: 'read', args: { path: 'a' } },
  { type: 'tool/ptc-dispatch-start', ts: at(200), parentId: 'rc', id: 'rc:ptc:2', tool: 'read', args: { path: 'b' } },
  { type: 'tool/approval', ts: at(250), stage: 'request', id: 'rc:ptc:2', tool: 'read', parentId: 'rc', args: { path: 'b' } },
  { type: 'tool/ptc-dispatch', ts: at(300), parentId: 'rc', id: 'rc:ptc:1', tool: 'read', args: { path: 'a' }, content: 'A', isError: false },
  { type: 'tool/approval', ts: at(350), stage: 'answer', id: 'rc:ptc:2', tool: 'read', parentId: 'rc', decision: 'deny', by: 'person', reason: 'denied by the user: no' },
  { type: 'tool/ptc-dispatch', ts: at(400), parentId: 'rc', id: 'rc:ptc:2', tool: 'read', args: { path: 'b' }, content: 'denied', isError: true },
  {
    type: 'tool/result',
    ts: at(500),
    id: 'rc',
    name: 'run_code',
    content: 'Error [EXCEPTION]: boom (program.ts:3:9)',
    isError: true,
    error: { code: 'EXCEPTION', message: 'boom (program.ts:3:9)' },
  },
  { type: 'llm/response', ts: at(600), step: 2, text: 'Done.', toolCalls: [], usage: {} },
  { type: 'session/end', ts: at(700), reason: 'completed', steps: 2 },
];

describe('session view reducer', () => {
  it('folds a run_code call, its sub-calls, an approval and the answer into cards', () => {
    const view = viewOf(events);
    expect(view.count).toBe(events.length);
    expect(view.open).toBe(false);
    expect(view.items.map((i: { kind: string }) => i.kind)).toEqual(['turn', 'user', 'tool', 'approval', 'assistant', 'end']);
    const card = view.items[2];
    expect(card).toMatchObject({ name: 'run_code', description: 'two reads', program: 'return 1;', status: 'error', error: { code: 'EXCEPTION' } });
    expect(card.subCalls).toMatchObject([
      { id: 'rc:ptc:1', tool: 'read', content: 'A', isError: false },
      { id: 'rc:ptc:2', tool: 'read', content: 'denied', isError: true },
    ]);
    expect(view.items[3]).toMatchObject({ kind: 'approval', id: 'rc:ptc:2', parentId: 'rc', decision: 'deny', reason: 'denied by the user: no' });
    expect(programPosition(card.error.message)).toEqual({ line: 3, column: 9 });
  });

  it('live (one event at a time, views kept) and replay (all at once) give the same view; unchanged items are shared', () => {
    let live = emptyView();
    const seen = [];
    for (const event of events) {
      const before = live;
      live = applyEvent(live, event);
      seen.push(before);
    }
    expect(live).toEqual(viewOf(events));
    // The user message item is the same object after later events: a renderer can skip it.
    const userAfterStart = seen[2].items[1];
    expect(live.items[1]).toBe(userAfterStart);
  });

  it('a turn is open from its start or resume line to its session/end', () => {
    expect(viewOf(events.slice(0, 5)).open).toBe(true);
    const resumed = viewOf([...events, { type: 'session/resume', ts: at(800), preset: 'standard', model: 'm', mode: 'native' }]);
    expect(resumed.open).toBe(true);
    expect(resumed.items.at(-1)).toMatchObject({ kind: 'turn', resumed: true, preset: 'standard' });
  });

  it('lays the sub-calls out on the card span', () => {
    const card = viewOf(events).items[2];
    expect(waterfall(card)).toEqual([
      { id: 'rc:ptc:1', left: 25, width: 25, ms: 100 },
      { id: 'rc:ptc:2', left: 25, width: 50, ms: 200 },
    ]);
    // While running, unfinished bars reach the latest time known.
    const running = viewOf(events.slice(0, 9)).items[2];
    expect(waterfall(running, Date.parse(at(500)))).toMatchObject([{ width: 25 }, { left: 25, width: 75, ms: undefined }]);
  });

  it('ignores lines it has no card for, and events of unknown calls', () => {
    const view = viewOf([
      { type: 'llm/request', ts: at(0), step: 1, tools: [], system: '' },
      { type: 'tool/ptc-dispatch', ts: at(1), parentId: 'nope', id: 'nope:ptc:1', tool: 'read', args: {}, content: '', isError: false },
      { type: 'tool/result', ts: at(2), id: 'nope', name: 'read', content: '', isError: false },
    ]);
    expect(view.items).toEqual([]);
    expect(view.count).toBe(3);
  });

  it('finds line:column only in a program position', () => {
    expect(programPosition('boom (program.ts:12:5)')).toEqual({ line: 12, column: 5 });
    expect(programPosition('no position')).toBeUndefined();
    expect(programPosition(undefined)).toBeUndefined();
  });
});

describe('the context meter (docs/compaction.md)', () => {
  it('shows the estimate of the latest request, then the provider count of its response, and notes compactions', () => {
    const request = { type: 'llm/request', ts: at(0), step: 1, tools: [], system: '', context: { estimatedTokens: 8_000, window: 32_000 } };
    const estimated = viewOf([request]);
    expect(estimated.meter).toEqual({ tokens: 8_000, window: 32_000, reported: false });
    expect(meterText(estimated.meter)).toBe('context 25% of 32k');
    const reported = applyEvent(estimated, { type: 'llm/response', ts: at(1), step: 1, text: '', toolCalls: [], usage: { inputTokens: 9_000, outputTokens: 600 } });
    expect(reported.meter).toEqual({ tokens: 9_600, window: 32_000, reported: true });
    const compacted = applyEvent(reported, { type: 'context/compaction', ts: at(2), step: 2, trigger: 'auto', pruned: [{ id: 'c1', stub: 's' }], tokensBefore: 27_000, tokensAfter: 9_000 });
    expect(compacted.items.at(-1)).toMatchObject({ kind: 'notice', tone: 'info' });
    expect(compacted.items.at(-1).text).toMatch(/1 old result pruned.*27000 → 9000/);
    expect(meterText({ tokens: 1_500, reported: false })).toBe('context 1.5k tokens');
  });
});

describe('plan mode in the view (docs/plan-mode.md)', () => {
  const ts = '2026-12-02T00:00:00.000Z';
  it('follows the mode, shows a proposed plan as its own card, and makes an approved plan the todo list', () => {
    const planning = viewOf([
      { type: 'session/start', ts, sessionId: 's', preset: 'standard', cwd: '/w', model: 'm', mode: 'native' },
      { type: 'plan/mode', ts, active: true, by: 'user' },
      { type: 'tool/call', ts, id: 'pp1', name: 'plan_propose', args: { markdown: '# Plan', steps: ['Read', 'Write'] } },
    ]);
    expect(planning.planMode).toBe(true);
    expect(planning.items.at(-1)).toMatchObject({ kind: 'plan', id: 'pp1', markdown: '# Plan', steps: ['Read', 'Write'] });
    expect(planning.items.at(-1)).not.toHaveProperty('decision');
    const approved = [
      { type: 'plan/review', ts, id: 'pp1', decision: 'approved', steps: ['Read', 'Write'] },
      { type: 'plan/mode', ts, active: false, by: 'approval' },
      { type: 'tool/result', ts, id: 'pp1', name: 'plan_propose', content: 'approved', isError: false },
    ].reduce((v: typeof planning, e: unknown) => applyEvent(v, e), planning);
    expect(approved.planMode).toBe(false);
    expect(approved.items.find((i: { key: string }) => i.key === 'plan-pp1')).toMatchObject({ decision: 'approved' });
    expect(approved.todos).toEqual([
      { content: 'Read', status: 'pending' },
      { content: 'Write', status: 'pending' },
    ]);
    const progressed = [
      { type: 'tool/call', ts, id: 't1', name: 'todo', args: { todos: [{ content: 'Read', status: 'completed' }, { content: 'Write', status: 'in_progress' }] } },
      { type: 'tool/result', ts, id: 't1', name: 'todo', content: 'ok', isError: false },
    ].reduce((v: typeof planning, e: unknown) => applyEvent(v, e), approved);
    expect(progressed.todos.map((t: { status: string }) => t.status)).toEqual(['completed', 'in_progress']);
  });

  it('a sent-back plan keeps its comment; a rejected todo list does not replace the panel', () => {
    const view = viewOf([
      { type: 'tool/call', ts, id: 'pp1', name: 'plan_propose', args: { markdown: 'x', steps: ['a'] } },
      { type: 'plan/review', ts, id: 'pp1', decision: 'sent-back', comment: 'smaller' },
      { type: 'tool/call', ts, id: 't1', name: 'todo', args: { todos: [{ content: 'a', status: 'in_progress' }, { content: 'b', status: 'in_progress' }] } },
      { type: 'tool/result', ts, id: 't1', name: 'todo', content: 'two in progress', isError: true },
    ]);
    expect(view.items.find((i: { key: string }) => i.key === 'plan-pp1')).toMatchObject({ decision: 'sent-back', comment: 'smaller' });
    expect(view.todos).toEqual([]);
  });
});
