// The shape of each session-log line, checked on read: a log is evidence, and may come from a crashed
// run, another version or a hand edit. Kept in step with events.ts by the type check at the end.

import { z } from 'zod';

import type { SessionEvent, SessionEventType } from './events.js';

const json = z.json();

const truncationNote = z.object({
  originalBytes: z.number().int().nonnegative(),
  fields: z.array(z.string()),
  omitted: z.array(z.string()).optional(),
});

const line = { ts: z.string(), truncated: truncationNote.optional() };

const usage = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
});

const toolCall = z.object({ id: z.string(), name: z.string(), args: json });

/** Validates one parsed line against the SessionEvent union (extra fields are allowed and kept by the reader). */
export const sessionEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session/start'),
    ...line,
    sessionId: z.string(),
    preset: z.string(),
    cwd: z.string(),
    model: z.string(),
    mode: z.enum(['native', 'ptc']),
    pid: z.number().int().optional(),
    host: z.string().optional(),
    parent: z.object({ sessionId: z.string(), toolCallId: z.string() }).optional(),
  }),
  z.object({
    type: z.literal('session/resume'),
    ...line,
    preset: z.string(),
    model: z.string(),
    mode: z.enum(['native', 'ptc']),
    pid: z.number().int().optional(),
    host: z.string().optional(),
  }),
  z.object({ type: z.literal('user/message'), ...line, text: z.string() }),
  z.object({
    type: z.literal('llm/request'),
    ...line,
    step: z.number().int(),
    tools: z.array(z.string()),
    system: z.string(),
    toolSchemas: z.array(json).optional(),
    context: z.object({ estimatedTokens: z.number().int(), window: z.number().int().optional() }).optional(),
  }),
  z.object({
    type: z.literal('llm/response'),
    ...line,
    step: z.number().int(),
    text: z.string(),
    toolCalls: z.array(toolCall),
    usage,
    finishReason: z.string().optional(),
  }),
  z.object({ type: z.literal('tool/call'), ...line, id: z.string(), name: z.string(), args: json }),
  z.object({
    type: z.literal('tool/ptc-dispatch-start'),
    ...line,
    parentId: z.string(),
    id: z.string(),
    tool: z.string(),
    args: json,
  }),
  z.object({
    type: z.literal('tool/ptc-dispatch'),
    ...line,
    parentId: z.string(),
    id: z.string(),
    tool: z.string(),
    args: json,
    content: z.string(),
    isError: z.boolean(),
  }),
  z.object({
    type: z.literal('tool/result'),
    ...line,
    id: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    spill: z.object({ path: z.string(), bytes: z.number().int(), totalBytes: z.number().int() }).optional(),
  }),
  z.object({
    type: z.literal('tool/approval'),
    ...line,
    stage: z.enum(['request', 'answer']),
    id: z.string(),
    tool: z.string(),
    parentId: z.string().optional(),
    args: json.optional(),
    why: z.string().optional(),
    alwaysAllow: z.string().optional(),
    decision: z.enum(['allow', 'allow-tool', 'allow-always', 'deny']).optional(),
    by: z.enum(['person', 'session', 'policy', 'rule']).optional(),
    reason: z.string().optional(),
  }),
  z.object({ type: z.literal('context/deferred'), ...line, step: z.number().int(), source: z.string(), text: z.string() }),
  z.object({
    type: z.literal('goal/set'),
    ...line,
    objective: z.string(),
    check: z.string().optional(),
    budget: z.object({ maxRounds: z.number().int(), maxTokens: z.number().int().optional(), maxTimeMs: z.number().int().optional() }),
  }),
  z.object({
    type: z.literal('goal/round'),
    ...line,
    round: z.number().int(),
    left: z.object({ rounds: z.number().int(), tokens: z.number().int().optional(), timeMs: z.number().int().optional() }),
    resumed: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('goal/check'),
    ...line,
    round: z.number().int(),
    command: z.string(),
    exitCode: z.number().int().nullable(),
    passed: z.boolean(),
    output: z.string(),
  }),
  z.object({ type: z.literal('goal/met'), ...line, round: z.number().int(), evidence: z.string() }),
  z.object({ type: z.literal('plan/mode'), ...line, active: z.boolean(), by: z.enum(['flag', 'user', 'approval']) }),
  z.object({
    type: z.literal('plan/review'),
    ...line,
    id: z.string(),
    decision: z.enum(['approved', 'sent-back', 'unreviewed']),
    steps: z.array(z.string()).optional(),
    comment: z.string().optional(),
  }),
  z.object({
    type: z.literal('goal/abandoned'),
    ...line,
    round: z.number().int(),
    reason: z.enum(['max-rounds', 'max-tokens', 'max-time', 'error']),
    message: z.string(),
  }),
  z.object({
    type: z.literal('context/compaction'),
    ...line,
    step: z.number().int(),
    trigger: z.enum(['auto', 'manual']),
    pruned: z.array(z.object({ id: z.string(), stub: z.string() })),
    summary: z.string().optional(),
    keepFromStep: z.number().int().optional(),
    focus: z.string().optional(),
    tokensBefore: z.number().int(),
    tokensAfter: z.number().int(),
    usage: usage.optional(),
  }),
  z.object({ type: z.literal('context/compaction-failed'), ...line, step: z.number().int(), trigger: z.enum(['auto', 'manual']), message: z.string() }),
  z.object({ type: z.literal('llm/error'), ...line, step: z.number().int(), message: z.string(), status: z.number().int().optional() }),
  z.object({
    type: z.literal('session/end'),
    ...line,
    reason: z.enum(['completed', 'max-steps', 'aborted', 'error']),
    steps: z.number().int(),
    error: z.string().optional(),
  }),
]);

/** Every `type` this version knows. */
export const SESSION_EVENT_TYPES: ReadonlySet<string> = new Set<SessionEventType>(
  sessionEventSchema.options.map((option) => option.shape.type.value),
);

// Compile-time proof that the schema and the SessionEvent type describe the same lines.
type Parsed = z.output<typeof sessionEventSchema>;
type Assert<T extends true> = T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type SchemaMatchesEvents = Assert<Same<Parsed, SessionEvent>>;
