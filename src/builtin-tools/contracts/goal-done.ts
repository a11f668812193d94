// The contract of `goal_done` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';
import { MAX_GOAL_EVIDENCE_CHARS } from '../limits.js';

export const input = z.strictObject({
  evidence: z.string().min(1).max(MAX_GOAL_EVIDENCE_CHARS).describe('What you did and how you know the goal is met.'),
});

export const output = z.string();
