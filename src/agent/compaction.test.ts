import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../session/events.js';
import { createSpillStore, type SpillStore } from '../tools/spill.js';
import { compactContext, type CompactInput, type Summarise } from './compaction.js';
import { estimateRequestTokens } from './context-meter.js';
import { buildMessages } from './request.js';

const ts = '2026-12-01T00:00:00.000Z';
let dir: string;
let spill: SpillStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compaction-unit-'));
  spill = createSpillStore({ dir: path.join(dir, 's.spill') });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const todos = [
  { content: 'Read the files', status: 'completed' },
  { content: 'Write the report', status: 'in_progress' },
];

/** A session of `steps` steps: each reads a file of 3,000 characters; step 2 also sets the todo list. */
function session(steps: number): SessionEvent[] {
  const events: SessionEvent[] = [
    { type: 'session/start', ts, sessionId: 's', preset: 'standard', cwd: '/w', model: 'm', mode: 'native' },
    { type: 'goal/set', ts, objective: 'All tests pass', check: 'npm test', budget: { maxRounds: 3 } },
    { type: 'user/message', ts, text: 'Read every file, then report.' },
  ];
  for (let step = 1; step <= steps; step++) {
    events.push({ type: 'llm/request', ts, step, tools: ['read', 'todo'], system: 'sys' });
    const calls = [{ id: `r${step}`, name: 'read', args: { path: `f${step}.txt` } }];
    if (step === 2) calls.push({ id: 't2', name: 'todo', args: { todos } as never });
    events.push({ type: 'llm/response', ts, step, text: `Reading f${step}.txt.`, toolCalls: calls, usage: {} });
    for (const call of calls) events.push({ type: 'tool/call', ts, id: call.id, name: call.name, args: call.args });
    events.push({ type: 'tool/result', ts, id: `r${step}`, name: 'read', content: `${step}`.repeat(3_000), isError: false });
    if (step === 2) events.push({ type: 'tool/result', ts, id: 't2', name: 'todo', content: 'the list', isError: false });
  }
  return events;
}

function input(events: SessionEvent[], extra: Partial<CompactInput> & { summarise?: Summarise } = {}): CompactInput {
  return {
    events,
    step: lastStep(events) + 1,
    system: 'sys',
    toolSchemas: [],
    window: 10_000,
    threshold: 0.8,
    trigger: 'auto',
    spill,
    summarise: async () => {
      throw new Error('no summary expected');
    },
    ...extra,
  };
}

const lastStep = (events: SessionEvent[]) => Math.max(...events.flatMap((e) => (e.type === 'llm/response' ? [e.step] : [])));
const tokens = (events: SessionEvent[]) => estimateRequestTokens({ system: 'sys', toolSchemas: [], messages: buildMessages(events) });
const apply = (events: SessionEvent[], lines: readonly object[]) => [...events, ...lines.map((l) => ({ ts, ...l }) as SessionEvent)];

describe('compactContext', () => {
  it('prunes results older than the latest three steps when that is enough, naming a file with each full text', async () => {
    const events = session(10);
    const window = Math.ceil(tokens(events) / 0.9);
    const outcome = await compactContext(input(events, { window }));
    expect(outcome.failure).toBeUndefined();
    const [event] = outcome.events;
    expect(event).toMatchObject({ type: 'context/compaction', trigger: 'auto', step: 11 });
    if (event?.type !== 'context/compaction') throw new Error('no compaction');
    expect(event.summary).toBeUndefined();
    expect(event.pruned.map((p) => p.id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    const file = /the full text is in (\S+):/.exec(event.pruned[0]!.stub)![1]!;
    expect(fs.readFileSync(file, 'utf8')).toBe('1'.repeat(3_000));
    const after = apply(events, outcome.events);
    expect(tokens(after)).toBe(outcome.tokensAfter);
    expect(outcome.tokensAfter).toBeLessThanOrEqual(0.8 * window);
    // The todo result (the plan) stays whole.
    expect(JSON.stringify(buildMessages(after))).toContain('the list');
  });

  it('summarises when pruning is not enough, carrying the goal, the todo list and the last user message verbatim', async () => {
    const events = session(10);
    let asked = '';
    const outcome = await compactContext(
      input(events, {
        window: 2_000,
        summarise: async (system, text) => {
          asked = `${system}\n${text}`;
          return { text: 'Files 1 to 8 were read.', usage: { inputTokens: 10, outputTokens: 5 } };
        },
      }),
    );
    const event = outcome.events[0];
    if (event?.type !== 'context/compaction') throw new Error('no compaction');
    expect(event.keepFromStep).toBe(9);
    expect(event.summary).toContain('Files 1 to 8 were read.');
    expect(event.summary).toContain('[The goal, verbatim]\nAll tests pass\n(check: npm test)');
    expect(event.summary).toContain(`[The todo list (the plan) as last set, verbatim]\n${JSON.stringify({ todos })}`);
    expect(event.summary).toContain('[The latest user message before the cut, verbatim]\nRead every file, then report.');
    expect(asked).toContain('Reading f1.txt.');
    const messages = buildMessages(apply(events, outcome.events));
    expect(messages[0]).toEqual({ role: 'user', content: event.summary });
    expect(messages[1]?.role).toBe('assistant');
    expect((messages[1]?.content as { type: string; text?: string }[])[0]).toEqual({ type: 'text', text: 'Reading f9.txt.' });
    expect(messages).toHaveLength(5);
  });

  it('in plan mode, carries the plan under review verbatim; an approved plan is carried as the todo list', async () => {
    const plan = { markdown: '## Plan\nSplit the report.', steps: ['Write part 1', 'Write part 2'] };
    const planning: SessionEvent[] = [
      { type: 'plan/mode', ts, active: true, by: 'flag' },
      ...session(10).slice(0, 3),
      { type: 'llm/request', ts, step: 1, tools: ['read', 'plan_propose'], system: 'sys' },
      { type: 'llm/response', ts, step: 1, text: 'Proposing.', toolCalls: [{ id: 'pp1', name: 'plan_propose', args: plan }], usage: {} },
      { type: 'tool/call', ts, id: 'pp1', name: 'plan_propose', args: plan },
      { type: 'plan/review', ts, id: 'pp1', decision: 'sent-back', comment: 'shorter' },
      { type: 'tool/result', ts, id: 'pp1', name: 'plan_propose', content: 'sent back: shorter', isError: false },
      ...session(10).slice(3).map((e) => ('step' in e && typeof e.step === 'number' ? { ...e, step: e.step + 1 } : e)),
    ];
    const summarise: Summarise = async () => ({ text: 'Reading files.', usage: {} });
    const outcome = await compactContext(input(planning, { window: 2_000, summarise }));
    const event = outcome.events[0];
    if (event?.type !== 'context/compaction') throw new Error('no compaction');
    expect(event.summary).toContain(`[Plan mode is on; the plan last proposed with plan_propose, verbatim]\n${JSON.stringify(plan)}`);

    const approved: SessionEvent[] = [
      ...planning.slice(0, 7),
      { type: 'plan/review' as const, ts, id: 'pp1', decision: 'approved' as const, steps: plan.steps },
      { type: 'plan/mode' as const, ts, active: false, by: 'approval' as const },
      ...planning.slice(8),
    ].filter((e) => !(e.type === 'tool/call' && e.name === 'todo') && !(e.type === 'tool/result' && e.name === 'todo'));
    const after = await compactContext(input(approved, { window: 2_000, summarise }));
    const second = after.events[0];
    if (second?.type !== 'context/compaction') throw new Error('no compaction');
    expect(second.summary).not.toContain('Plan mode is on');
    expect(second.summary).toContain(JSON.stringify({ todos: plan.steps.map((content) => ({ content, status: 'pending' })) }));
  });

  it('fails, applying nothing of the summary, when it is empty, too long or the call throws', async () => {
    const events = session(10);
    for (const [summarise, why] of [
      [async () => ({ text: ' \n', usage: {} }), /empty summary/],
      [async () => ({ text: 'x'.repeat(4_000), usage: {} }), /too long/],
      [
        async () => {
          throw new Error('HTTP 503');
        },
        /summary call failed: HTTP 503/,
      ],
    ] as const) {
      const outcome = await compactContext(input(events, { window: 2_000, summarise }));
      expect(outcome.failure).toMatch(why);
      expect(outcome.events.at(-1)).toMatchObject({ type: 'context/compaction-failed', trigger: 'auto' });
      expect(outcome.events.some((e) => e.type === 'context/compaction' && e.summary !== undefined)).toBe(false);
    }
  });

  it('a second summary covers the first: the rebuild keeps only the latest', async () => {
    let events = session(6);
    const first = await compactContext(input(events, { trigger: 'manual', summarise: async () => ({ text: 'first', usage: {} }) }));
    events = apply(events, first.events);
    for (let step = 7; step <= 9; step++) {
      events.push({ type: 'llm/request', ts, step, tools: [], system: 'sys' });
      events.push({ type: 'llm/response', ts, step, text: `step ${step}`, toolCalls: [], usage: {} });
    }
    let transcript = '';
    const second = await compactContext(
      input(events, {
        trigger: 'manual',
        summarise: async (_system, text) => {
          transcript = text;
          return { text: 'second', usage: {} };
        },
      }),
    );
    // The earlier summary is part of what the second one summarises, the pruned results only as stubs.
    expect(transcript).toContain('first');
    expect(transcript).not.toContain('1'.repeat(3_000));
    const messages = buildMessages(apply(events, second.events));
    expect(JSON.stringify(messages)).not.toContain('first');
    expect((messages[0] as { content: string }).content).toContain('second');
    expect(messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'assistant']);
  });

  it('a second summary in the same long turn still carries the user message verbatim, from before the first cut', async () => {
    let events = session(6);
    const first = await compactContext(input(events, { trigger: 'manual', summarise: async () => ({ text: 'first', usage: {} }) }));
    events = apply(events, first.events);
    for (let step = 7; step <= 9; step++) {
      events.push({ type: 'llm/request', ts, step, tools: [], system: 'sys' });
      events.push({ type: 'llm/response', ts, step, text: `step ${step}`, toolCalls: [], usage: {} });
    }
    const second = await compactContext(input(events, { trigger: 'manual', summarise: async () => ({ text: 'second', usage: {} }) }));
    const event = second.events.find((e) => e.type === 'context/compaction' && e.summary !== undefined) as { summary: string };
    expect(event.summary).toContain('[The latest user message before the cut, verbatim]\nRead every file, then report.');
  });
});
