// `ptc-harness/agent`: the agent loop and what it is made of: prompts, requests, goals, subagents,
// the context meter and compaction (docs/goals.md, docs/compaction.md).

export { runAgent, DEFAULT_MAX_STEPS, type AgentRunOptions, type AgentRunResult, type AgentProgress, type EventSink, type TurnContext } from '../agent/loop.js';
export { assemblePrompt, renderSystemPrompt, type PromptAssembly, type PromptSection } from '../agent/prompt.js';
export { buildRequest, buildMessages, type ModelRequest } from '../agent/request.js';
export { compactSession, type CompactSessionOptions, type CompactSessionResult } from '../agent/compact-session.js';
export { estimateRequestTokens, estimateTextTokens, contextWindowOf } from '../agent/context-meter.js';
export { SUMMARY_SYSTEM_PROMPT } from '../agent/compaction-prompt.js';
export { runGoal, type GoalOptions, type GoalOutcome, type GoalRunOptions, type GoalRunResult } from '../agent/goal.js';
export { budgetLeft, goalStateOf, parseDuration, type GoalSpec, type GoalState } from '../agent/goal-state.js';
export type { SubagentParent } from '../agent/subagent.js';
export { resolveModel, describeModelError, type ResolvedModel } from '../llm/index.js';
export { defaultLoop, loopOf, type AgentLoop } from '../agent/loop-service.js';
export { createAgentHarness } from '../agent/agent-harness.js';
export { AGENT_ROWS } from '../agent/agent-rows.js';
export { aiSdkLlm } from '../llm/llm-plugin.js';
export type { LlmRequest, LlmResponse, LlmService, ModelCallHooks, ModelClient, ModelSettings, ModelToolCall } from '../llm/llm-service.js';
