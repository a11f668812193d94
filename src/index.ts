// The library entry of ptc-harness: what a library user needs to build a harness, define tools, run
// an agent or a program, and read its sessions. Each area's full surface is a subpath entry
// (`ptc-harness/mcp`, `/acp`, `/eval`, `/ui`, `/ai-sdk`, `/agent`, `/sessions`, `/presets`,
// `/tools`, `/runtime`, `/sandbox`, `/config`); docs/library-api.md lists them.

export * from './errors.js';
export type { JsonObject, JsonPrimitive, JsonSchema, JsonValue } from './json.js';
export { Context, createContext, type Disposer, type Plugin, type Services } from './context/index.js';
export {
  defineTool,
  ToolRuntime,
  type AnyToolDefinition,
  type ToolCall,
  type ToolCallResult,
  type ToolDefinition,
  type ToolExecContext,
  type ZodToolInit,
} from './tools/index.js';
// The zod that defineTool reads: a plugin importing both from here gets matching types.
export { z } from 'zod';
export { builtinToolsPlugin, type ExtraPluginRow, type Harness, type HarnessOptions } from './harness.js';
// With the agent's row kinds, so a preset's `loop` row is the real loop (src/agent/agent-rows.ts).
export { createAgentHarness as createHarness } from './agent/agent-harness.js';
export { DEFAULT_PRESET, type LoadedPreset } from './presets/presets.js';
export { loadPreset } from './trust/trusted-preset.js';
export { listPresets } from './presets/resolve-preset.js';
export { installApprovals, APPROVAL_POLICIES, type ApprovalAnswer, type ApprovalPolicy, type ApprovalRequest, type Approver } from './approvals/approvals.js';
export { runAgent, type AgentRunOptions, type AgentRunResult } from './agent/loop.js';
export { runGoal, type GoalRunOptions, type GoalRunResult } from './agent/goal.js';
export { resolveModel, type ResolvedModel } from './llm/index.js';
export { createRunCodeTool, type RunCodeArgs, type RunCodeValue } from './ptc/run-code.js';
export { execProgram, type ExecProgramOptions, type ExecProgramResult } from './ptc/exec-program.js';
export type { PtcRuntime, RunRequest, RunResult } from './ptc-runtime/index.js';
export { createNodeRuntime, type NodeRuntime } from './languages/typescript/runtime/index.js';
export { createPythonRuntime, type PythonRuntime } from './languages/python/runtime/index.js';
export { createBashTool, createFileTools, createGrepTool, createWebSearchTool } from './exports/tools.js';
export { resolveWorkspacePolicy } from './sandbox/index.js';
export { continueSession, listSessions, readSession, startSession } from './session/index.js';
