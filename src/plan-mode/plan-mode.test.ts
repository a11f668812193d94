import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assemblePrompt, renderSystemPrompt } from '../agent/prompt.js';
import { createHarness, type Harness } from '../harness.js';
import type { SessionEvent } from '../session/events.js';
import { todosFromSession } from '../builtin-tools/todo.js';
import { installPlanMode, pendingPlanOf, planModeOf, type PlanReview } from './plan-mode.js';

let workspace: string;
const harnesses: Harness[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-plan-unit-')));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.dispose();
  fs.rmSync(workspace, { recursive: true, force: true });
});

async function open(preset: string): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto', runtimePool: { size: 1, refill: false } });
  harnesses.push(harness);
  return harness;
}

const WRITERS = ['write', 'edit', 'task'];

describe('plan mode visibility', () => {
  it('hides the tools that write from the native list and shows plan_propose; off again, the list is as before', async () => {
    const harness = await open('standard');
    const before = harness.tools.wireTools().map((t) => t.name);
    expect(before).toEqual(expect.arrayContaining(WRITERS));
    expect(before).not.toContain('plan_propose');
    const { service } = installPlanMode(harness.ctx, { active: true });
    const planning = harness.tools.wireTools().map((t) => t.name);
    for (const name of WRITERS) expect(planning).not.toContain(name);
    expect(planning).toEqual(expect.arrayContaining(['bash', 'read', 'glob', 'grep', 'todo', 'plan_propose']));
    // A hidden tool cannot be called either.
    const call = await harness.tools.execute('write', { path: 'x.txt', content: 'x' }, { id: 'w1' });
    expect(call).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } });
    expect(fs.existsSync(path.join(workspace, 'x.txt'))).toBe(false);
    service.set(false, 'user');
    expect(harness.tools.wireTools().map((t) => t.name)).toEqual(before);
  });

  it('hides them from the generated SDK of a ptc preset, and from a program', async () => {
    const harness = await open('ptc');
    const sdkOf = async () => renderSystemPrompt(await assemblePrompt({ scope: harness.ctx, step: 1, cwd: workspace, instructions: false }));
    const normal = await sdkOf();
    expect(normal).toMatch(/^\s*"?write"?\(/m);
    const { service } = installPlanMode(harness.ctx, { active: true });
    const planning = await sdkOf();
    expect(planning).not.toMatch(/^\s*"?write"?\(/m);
    expect(planning).not.toMatch(/^\s*"?edit"?\(/m);
    expect(planning).toMatch(/^\s*"?read"?\(/m);
    expect(planning).toMatch(/^\s*"?plan_propose"?\(/m);
    expect(planning).toMatch(/Plan mode is on/);
    const scope = await harness.ptcScope();
    const result = await harness.tools.execute('run_code', { code: "return await tools.write({ path: 'y.txt', content: 'y' });", description: 'try' }, { scope, id: 'p1' });
    expect(result.isError).toBe(true);
    expect(fs.existsSync(path.join(workspace, 'y.txt'))).toBe(false);
    service.set(false, 'user');
    expect(await sdkOf()).toEqual(normal);
  });
});

describe('plan_propose', () => {
  async function propose(review: PlanReview | undefined, args: unknown) {
    const harness = await open('standard');
    const { service } = installPlanMode(harness.ctx, { active: true, ...(review !== undefined ? { reviewer: async () => review } : {}) });
    const changes: boolean[] = [];
    harness.ctx.on('plan/mode', (c) => void changes.push(c.active));
    const result = await harness.tools.execute('plan_propose', args, { id: 'pp1' });
    return { result, service, changes };
  }

  it('empty steps: INVALID_ARGS naming the cause and the fix; plan mode stays', async () => {
    const { result, service } = await propose({ decision: 'approve' }, { markdown: '# Plan', steps: [] });
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(result.content).toMatch(/steps.*empty/);
    expect(result.content).toMatch(/at least one step/);
    expect(service.active).toBe(true);
  });

  it('a blank step and a blank markdown are INVALID_ARGS too', async () => {
    const blankStep = await propose({ decision: 'approve' }, { markdown: '# Plan', steps: ['a', '  '] });
    expect(blankStep.result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(blankStep.result.content).toMatch(/step 2 is blank/);
    const blankText = await propose({ decision: 'approve' }, { markdown: '  ', steps: ['a'] });
    expect(blankText.result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
  });

  it('approved: plan mode ends and the result carries the steps as the todo list', async () => {
    const { result, service, changes } = await propose({ decision: 'approve' }, { markdown: '# Plan', steps: ['Read it', 'Fix it'] });
    expect(result.isError, result.content).toBe(false);
    expect(result.value).toMatchObject({ decision: 'approved', todos: [{ content: 'Read it', status: 'pending' }, { content: 'Fix it', status: 'pending' }] });
    expect(result.content).toMatch(/approved/);
    expect(result.content).toMatch(/\[ \] Fix it/);
    expect(service.active).toBe(false);
    expect(changes).toEqual([false]);
  });

  it('sent back: the comment is the result and plan mode stays', async () => {
    const { result, service, changes } = await propose({ decision: 'send-back', comment: 'keep the public API' }, { markdown: '# Plan', steps: ['Rewrite'] });
    expect(result.isError).toBe(false);
    expect(result.value).toMatchObject({ decision: 'sent-back', comment: 'keep the public API' });
    expect(result.content).toContain('keep the public API');
    expect(service.active).toBe(true);
    expect(changes).toEqual([]);
  });

  it('no reviewer (ptc run): recorded as unreviewed, plan mode stays, the model is told to stop', async () => {
    const { result, service } = await propose(undefined, { markdown: '# Plan', steps: ['Rewrite'] });
    expect(result.value).toMatchObject({ decision: 'unreviewed' });
    expect(result.content).toMatch(/ptc chat --resume/);
    expect(service.active).toBe(true);
  });
});

describe('reading plan mode back from a log', () => {
  const ts = '2026-12-02T00:00:00.000Z';
  const log: SessionEvent[] = [
    { type: 'plan/mode', ts, active: true, by: 'flag' },
    { type: 'tool/call', ts, id: 'c1', name: 'plan_propose', args: { markdown: 'first', steps: ['a'] } },
    { type: 'plan/review', ts, id: 'c1', decision: 'sent-back', comment: 'no' },
    { type: 'tool/call', ts, id: 'c2', name: 'plan_propose', args: { markdown: 'second', steps: ['b', 'c'] } },
  ];

  it('the mode is the last switch; the pending plan is the last proposal while plan mode is on', () => {
    expect(planModeOf([])).toBe(false);
    expect(planModeOf(log)).toBe(true);
    expect(pendingPlanOf(log)).toEqual({ markdown: 'second', steps: ['b', 'c'] });
  });

  it('an approval makes the steps the todo list and leaves no pending plan', () => {
    const approved: SessionEvent[] = [
      ...log,
      { type: 'plan/review', ts, id: 'c2', decision: 'approved', steps: ['b', 'c'] },
      { type: 'plan/mode', ts, active: false, by: 'approval' },
    ];
    expect(planModeOf(approved)).toBe(false);
    expect(pendingPlanOf(approved)).toBeUndefined();
    expect(todosFromSession(approved)).toEqual([
      { content: 'b', status: 'pending' },
      { content: 'c', status: 'pending' },
    ]);
  });
});
