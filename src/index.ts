// The library entry of ptc-harness.

export * from './errors.js';
export type { JsonObject, JsonPrimitive, JsonSchema, JsonValue } from './json.js';
export { checkJson, isJsonValue, renderJson } from './json.js';
export * from './context/index.js';
export * from './tools/index.js';
// The zod that defineTool reads: a plugin importing both from here gets matching types.
export { z } from 'zod';
export { jsonSchemaToTs, renderPythonSdk, renderTypeScriptSdk, SDK_RENDERERS, type SdkLanguage } from './codegen/index.js';
export { createHarness, builtinToolsPlugin, type ExtraPluginRow, type Harness, type HarnessOptions } from './harness.js';
export { DEFAULT_PRESET, type LoadedPreset, type PresetDefinition, type PresetRowState } from './presets/presets.js';
export { loadPreset } from './trust/trusted-preset.js';
export { readPresetFile, parsePresetText, type PresetFile, type PresetRow } from './presets/preset-file.js';
export { resolvePreset, listPresets, type PresetLocation, type PresetOrigin, type PresetSearch } from './presets/resolve-preset.js';
export type { HarnessSettings } from './presets/harness-settings.js';
export { creatorToolsPlugin, type CreatorToolsConfig } from './presets/creator-tools-plugin.js';
export type { HarnessInspection } from './presets/creator-inspect.js';
export type { PluginTryResult } from './presets/creator-plugin-try.js';
export type { PresetWriteResult } from './presets/creator-preset-write.js';
export { BUILTIN_TOOL_CATALOG, builtinToolNames, type BuiltinToolFactory, type BuiltinToolOptions } from './builtin-tools/catalog.js';
export { createFileTools, createGrepTool, type FileToolOptions, type GrepToolOptions } from './builtin-tools/index.js';
export * from './ptc-runtime/index.js';
export { createNodeRuntime, RUNTIME_GLOBALS, type NodeRuntime, type NodeRuntimeOptions, type NodeRuntimeLimits, type NodeRuntimePoolOptions } from './ptc-runtime-node/index.js';
export { launch, planLaunch, type LaunchOptions, type LaunchPlan, type LaunchRequest, type Launched, type SandboxPolicy } from './sandbox/index.js';
export { resolveWorkspacePolicy, type WorkspacePolicy, type WorkspacePolicyInput } from './sandbox/index.js';
export { createRunCodeTool, ProgramFailedError, RUN_CODE_DESCRIPTION, renderRunCodeValue, type PtcDispatchSettle, type PtcDispatchStart, type PtcRunEvent, type RunCodeArgs, type RunCodeValue } from './ptc/run-code.js';
export { DispatchPool, DEFAULT_MAX_PARALLEL_SUB_CALLS } from './ptc/dispatch-pool.js';
export { ptcPlugin, type PtcPluginConfig } from './ptc/plugin.js';
export { renderSdkSection, renderPtcOnlySection, renderSdkInstructions, SDK_SECTION_ID, PTC_ONLY_SECTION_ID, type PromptExample } from './ptc/prompt-sections.js';
export { createBashTool, type BashToolOptions } from './builtin-tools/bash.js';
export { createWebSearchTool, type WebSearchArgs, type WebSearchOutput, type WebSearchToolOptions } from './builtin-tools/web-search/web-search-tool.js';
export { WEB_SEARCH_BACKENDS, type SearchBackend, type WebSearchBackendName, type WebSearchConfig } from './builtin-tools/web-search/backend.js';
export { createPythonRuntime, type PythonRuntime, type PythonRuntimeOptions } from './ptc-runtime-python/index.js';
export { presetForLanguage } from './presets/python-runtime-plugin.js';
export {
  allowedToolsOf,
  installApprovals,
  APPROVAL_POLICIES,
  type ApprovalAnswer,
  type ApprovalEvent,
  type ApprovalOptions,
  type ApprovalPolicy,
  type ApprovalRequest,
  type Approver,
} from './approvals/approvals.js';
export { ApprovalRuleSet, describeRule, type RuleSaver } from './approvals/approval-rule-set.js';
export { describeRuleFor, parseRuleText, ruleMatches, type ApprovalRule } from './approvals/approval-rules.js';
export { readConfigFile, type LoadedConfigFile } from './config/load-config-file.js';
export { loadConfigFiles, ruleSetOf, type ConfigFiles } from './config/load-config.js';
export { effectiveConfig, type EffectiveConfig } from './config/effective-config.js';
export { saveAllowRule } from './config/save-rule.js';
export { createAcpAgent, type AcpAgentOptions } from './acp/acp-agent.js';
export { runAgent, DEFAULT_MAX_STEPS, type AgentRunOptions, type AgentRunResult, type AgentProgress, type EventSink, type TurnContext } from './agent/loop.js';
export { createTaskTool, TASK_DESCRIPTION, type AgentService, type SubagentOutcome, type SubagentRequest, type TaskArgs } from './builtin-tools/task.js';
export type { SubagentParent } from './agent/subagent.js';
export { assemblePrompt, renderSystemPrompt, type PromptAssembly, type PromptSection } from './agent/prompt.js';
export { buildRequest, buildMessages, type ModelRequest } from './agent/request.js';
export { compactSession, type CompactSessionOptions, type CompactSessionResult } from './agent/compact-session.js';
export { estimateRequestTokens, estimateTextTokens, contextWindowOf } from './agent/context-meter.js';
export { SUMMARY_SYSTEM_PROMPT } from './agent/compaction-prompt.js';
export { resolveModel, describeModelError, type ResolvedModel } from './llm/index.js';
export * from './session/index.js';
export { runGoal, type GoalOptions, type GoalOutcome, type GoalRunOptions, type GoalRunResult } from './agent/goal.js';
export { budgetLeft, goalStateOf, parseDuration, type GoalSpec, type GoalState } from './agent/goal-state.js';
export { createGoalDoneTool, GOAL_DONE_TOOL_NAME, type GoalDoneArgs } from './builtin-tools/goal-done.js';
export { execProgram, type ExecDispatch, type ExecJson, type ExecProgramOptions, type ExecProgramResult } from './ptc/exec-program.js';
export { createCodeModeServer, serveMcpStdio, MCP_SERVER_NAME, MCP_LOGGER_NAME, type CodeModeServerOptions, type RunCodeStructuredContent, type ServeMcpStdioOptions } from './mcp/server/index.js';
export { mcpPlugin, readMcpConfigFile, mcpConfigRow, mcpToolName, type McpConfig, type McpRowConfig, type McpServerConfig } from './mcp/client/index.js';
