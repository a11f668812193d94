// The `todo` tool: the agent's plan as a checklist (docs/web-tools.md). Each call sends the whole list;
// the tool keeps it per instance (one instance per agent) and returns it, so the value in the session
// log and the `tools/result` event carry the plan for front-ends, and a resumed session can rebuild it
// from the log with `todosFromSession`.

import type { z } from 'zod';
import { InvalidArgsError } from '../errors.js';
import type { SessionEvent } from '../session/events.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';

import { TODO_STATUSES, type TodoStatus } from './todo-status.js';

export { TODO_STATUSES, type TodoStatus } from './todo-status.js';

type Contract = typeof import('./contracts/todo.js');
export type TodoItem = z.output<Contract['item']>;
export type TodoArgs = ArgsOf<Contract>;
export type TodoOutput = ValueOf<Contract>;

export interface TodoToolOptions {
  /** The list the instance starts with (e.g. rebuilt by `todosFromSession` when resuming). */
  readonly initial?: readonly TodoItem[];
  /** Told after each accepted list (for a front-end that shows progress). */
  readonly onChange?: (todos: readonly TodoItem[]) => void;
}

/** A `todo` tool plus read access to its current list. */
export type TodoTool = ToolDefinition<TodoArgs, TodoOutput> & {
  /** The list as last accepted (a copy). */
  current(): TodoItem[];
};

export const TODO_DESCRIPTION =
  'Keep your plan for the task as a checklist the user can follow. Send the whole list every time ' +
  '(it replaces the previous one): each item has `content` and `status` (pending, in_progress or ' +
  'completed). Keep at most one item in_progress: mark it before you start on it and completed as ' +
  'soon as it is done. Use it for tasks of several steps; skip it for a single quick action.';

export function createTodoTool(options: TodoToolOptions = {}): TodoTool {
  let todos: TodoItem[] = options.initial ? copy(checkTodos(options.initial)) : [];
  const tool = defineTool<TodoArgs, TodoOutput>({
    name: 'todo',
    description: TODO_DESCRIPTION,
    ...contractSchemas('todo', () => import('./contracts/todo.js')),
    // It changes nothing outside this agent's own list, and its execute is synchronous, so calls
    // issued together still apply in the order issued. Concurrency-safe also keeps it from asking
    // under `--approve writes` (docs/approvals.md): it is not a write.
    isConcurrencySafe: true,
    execute(args) {
      todos = copy(checkTodos(args.todos));
      options.onChange?.(copy(todos));
      return outputOf(todos);
    },
    renderContent(value) {
      return renderTodos(value.todos);
    },
  });
  return Object.freeze({ ...tool, current: () => copy(todos) });
}

/** Checks what the schema cannot say: at most one item in progress. Returns the list unchanged. */
function checkTodos(todos: readonly TodoItem[]): readonly TodoItem[] {
  const active = todos.flatMap((item, i) => (item.status === 'in_progress' ? [i + 1] : []));
  if (active.length > 1) {
    throw new InvalidArgsError(
      `todo: items ${active.join(', ')} are all in_progress; keep at most one item in_progress ` +
        `(mark the others pending or completed) and send the list again.`,
    );
  }
  return todos;
}

function copy(todos: readonly TodoItem[]): TodoItem[] {
  return todos.map((item) => ({ content: item.content, status: item.status }));
}

function outputOf(todos: readonly TodoItem[]): TodoOutput {
  return { todos: copy(todos), completed: todos.filter((t) => t.status === 'completed').length, total: todos.length };
}

const MARKS: Readonly<Record<TodoStatus, string>> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

/** The checklist as text: a count line, then one line per item (`[x]` done, `[~]` in progress, `[ ]` pending). */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'Plan cleared (no items).';
  const done = todos.filter((t) => t.status === 'completed').length;
  const lines = todos.map((t) => `${MARKS[t.status]} ${t.content.replace(/\s*\n\s*/g, ' ')}${t.status === 'in_progress' ? '  (in progress)' : ''}`);
  return [`Plan: ${done} of ${todos.length} done`, ...lines].join('\n');
}

/** The `todos` of a value when it is a `todo` tool's output, else undefined (for front-ends reading results). */
export function todosOf(value: unknown): TodoItem[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const list = (value as { todos?: unknown }).todos;
  if (!Array.isArray(list)) return undefined;
  const items: TodoItem[] = [];
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { content, status } = entry as { content?: unknown; status?: unknown };
    if (typeof content !== 'string' || !(TODO_STATUSES as readonly unknown[]).includes(status)) return undefined;
    items.push({ content, status: status as TodoStatus });
  }
  return items;
}

/**
 * The plan as it stood at the end of a logged session. Every call sends the whole list, so the last
 * approved plan (`plan/review`) or successful `todo` call (a native `tool/call` whose `tool/result` is not an error, or a program's
 * `tool/ptc-dispatch` that is not an error) holds it in its arguments. Undefined when there was none.
 */
export function todosFromSession(events: readonly SessionEvent[], toolName = 'todo'): TodoItem[] | undefined {
  const argsById = new Map<string, unknown>();
  let last: TodoItem[] | undefined;
  for (const event of events) {
    if (event.type === 'tool/call' && event.name === toolName) argsById.set(event.id, event.args);
    else if (event.type === 'tool/result' && event.name === toolName && !event.isError) last = todosOf(argsById.get(event.id)) ?? last;
    else if (event.type === 'tool/ptc-dispatch' && event.tool === toolName && !event.isError) last = todosOf(event.args) ?? last;
    // An approved plan's steps become the list (docs/plan-mode.md).
    else if (event.type === 'plan/review' && event.decision === 'approved' && event.steps !== undefined) {
      last = event.steps.map((content) => ({ content, status: 'pending' }));
    }
  }
  return last;
}

/**
 * What a progress printer shows for a finished tool call when it was an accepted `todo` list: the
 * checklist, indented under the call's line. Undefined for any other call.
 */
export function todoProgressText(event: { readonly call: { readonly name: string }; readonly result: { readonly isError: boolean; readonly value?: unknown } }, toolName = 'todo'): string | undefined {
  // An approved plan_propose carries the list its steps became (docs/plan-mode.md).
  if ((event.call.name !== toolName && event.call.name !== 'plan_propose') || event.result.isError) return undefined;
  const todos = todosOf(event.result.value);
  return todos === undefined ? undefined : renderTodos(todos).split('\n').map((line) => `    ${line}`).join('\n');
}
