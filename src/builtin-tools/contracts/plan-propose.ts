// The contract of `plan_propose` (docs/plan-mode.md, docs/builtin-tools.md): zod, the one source of
// its types and wire schemas.

import { z } from 'zod';
import { MAX_PLAN_MARKDOWN_CHARS, MAX_TODO_CONTENT_CHARS, MAX_TODO_ITEMS } from '../limits.js';
import { item } from './todo.js';

export const input = z.strictObject({
  markdown: z.string().min(1).max(MAX_PLAN_MARKDOWN_CHARS).describe('The plan, as markdown.'),
  steps: z
    .array(z.string().min(1).max(MAX_TODO_CONTENT_CHARS))
    .max(MAX_TODO_ITEMS)
    .describe('The steps of the work, in order (at least one); they become the todo list when approved.'),
});

export const output = z.strictObject({
  decision: z.enum(['approved', 'sent-back', 'unreviewed']),
  message: z.string(),
  todos: z.array(item).optional().describe('Approved: the todo list the steps became.'),
  comment: z.string().optional().describe("Sent back: the person's comment."),
});
