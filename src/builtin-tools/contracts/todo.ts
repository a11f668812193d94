// The contract of `todo` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';
import { MAX_TODO_CONTENT_CHARS, MAX_TODO_ITEMS } from '../limits.js';
import { TODO_STATUSES } from '../todo-status.js';

export const item = z.strictObject({
  content: z.string().min(1).max(MAX_TODO_CONTENT_CHARS).describe('What to do, as a short imperative sentence.'),
  status: z.enum(TODO_STATUSES).describe('pending, in_progress (at most one item) or completed.'),
});

export const input = z.strictObject({
  todos: z.array(item).max(MAX_TODO_ITEMS).describe('The complete list, in order.'),
});

export const output = z.strictObject({
  todos: z.array(item).describe('The list as now kept.'),
  completed: z.int().describe('Number of completed items.'),
  total: z.int().describe('Number of items.'),
});
