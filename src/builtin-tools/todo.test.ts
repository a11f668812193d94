import { describe, expect, it } from 'vitest';

import { createContext } from '../context/context.js';
import { MAX_TODO_ITEMS } from './limits.js';
import type { SessionEvent } from '../session/events.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { createTodoTool, renderTodos, todoProgressText, todosFromSession, type TodoItem, type TodoTool } from './todo.js';

function registry(tool: TodoTool) {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  root.tools.register(tool);
  return root.tools;
}

const plan: TodoItem[] = [
  { content: 'Read the failing test', status: 'completed' },
  { content: 'Fix the parser', status: 'in_progress' },
  { content: 'Run the suite', status: 'pending' },
];

describe('todo', () => {
  it('keeps the whole list per instance and returns it rendered as a checklist', async () => {
    const changes: TodoItem[][] = [];
    const tool = createTodoTool({ onChange: (todos) => void changes.push([...todos]) });
    const tools = registry(tool);
    const result = await tools.execute('todo', { todos: plan });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ todos: plan, completed: 1, total: 3 });
    expect(result.content).toBe(
      ['Plan: 1 of 3 done', '[x] Read the failing test', '[~] Fix the parser  (in progress)', '[ ] Run the suite'].join('\n'),
    );
    expect(tool.current()).toEqual(plan);
    expect(changes).toEqual([plan]);

    // The next call replaces the list; another instance (another agent) keeps its own.
    await tools.execute('todo', { todos: [{ content: 'Run the suite', status: 'in_progress' }] });
    expect(tool.current()).toEqual([{ content: 'Run the suite', status: 'in_progress' }]);
    expect(createTodoTool().current()).toEqual([]);
  });

  it('refuses more than one item in progress with INVALID_ARGS, keeping the previous list', async () => {
    const tool = createTodoTool({ initial: plan });
    const result = await registry(tool).execute('todo', {
      todos: [
        { content: 'a', status: 'in_progress' },
        { content: 'b', status: 'pending' },
        { content: 'c', status: 'in_progress' },
      ],
    });
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toMatch(/items 1, 3 are all in_progress/);
    expect(tool.current()).toEqual(plan);
  });

  it('validates the items against its schema (status, empty content, list length)', async () => {
    const tools = registry(createTodoTool());
    for (const todos of [
      [{ content: 'a', status: 'done' }],
      [{ content: '', status: 'pending' }],
      [{ content: 'a' }],
      Array.from({ length: MAX_TODO_ITEMS + 1 }, (_, i) => ({ content: `t${i}`, status: 'pending' })),
    ]) {
      expect((await tools.execute('todo', { todos })).error?.code).toBe('INVALID_ARGS');
    }
  });

  it('an empty list clears the plan', async () => {
    const tool = createTodoTool({ initial: plan });
    const result = await registry(tool).execute('todo', { todos: [] });
    expect(result.content).toBe('Plan cleared (no items).');
    expect(tool.current()).toEqual([]);
    expect(renderTodos([])).toBe('Plan cleared (no items).');
  });

  it('rebuilds the plan from a session log: the last successful call, native or from a program', () => {
    const ts = '2025-01-01T00:00:00.000Z';
    const events: SessionEvent[] = [
      { type: 'tool/call', ts, id: 'c1', name: 'todo', args: { todos: plan } },
      { type: 'tool/result', ts, id: 'c1', name: 'todo', content: '…', isError: false },
      { type: 'tool/call', ts, id: 'c2', name: 'todo', args: { todos: [{ content: 'x', status: 'in_progress' }, { content: 'y', status: 'in_progress' }] } },
      { type: 'tool/result', ts, id: 'c2', name: 'todo', content: 'Error', isError: true },
    ];
    expect(todosFromSession(events)).toEqual(plan);
    const fromProgram: SessionEvent = {
      type: 'tool/ptc-dispatch', ts, parentId: 'rc1', id: 'rc1:ptc:1', tool: 'todo',
      args: { todos: [{ content: 'Ship it', status: 'completed' }] }, content: '…', isError: false,
    };
    expect(todosFromSession([...events, fromProgram])).toEqual([{ content: 'Ship it', status: 'completed' }]);
    expect(todosFromSession([])).toBeUndefined();
    // A resumed agent starts its tool from the rebuilt list.
    expect(createTodoTool({ initial: todosFromSession(events)! }).current()).toEqual(plan);
  });

  it('gives progress printers the checklist of an accepted todo result, nothing for other calls', async () => {
    const result = await registry(createTodoTool()).execute('todo', { todos: plan });
    expect(todoProgressText({ call: { name: 'todo' }, result })).toBe(
      ['    Plan: 1 of 3 done', '    [x] Read the failing test', '    [~] Fix the parser  (in progress)', '    [ ] Run the suite'].join('\n'),
    );
    expect(todoProgressText({ call: { name: 'read' }, result })).toBeUndefined();
    expect(todoProgressText({ call: { name: 'todo' }, result: { isError: true } })).toBeUndefined();
  });
});
