// The states of a todo item, shared by the `todo` tool and its contract (contracts/todo.ts) without
// either importing the other: the tool loads its contract lazily, at its first call.

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
