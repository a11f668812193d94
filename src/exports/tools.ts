// `ptc-harness/tools`: the tool registry and pipeline, schema validation, and the built-in tools
// with their factories (docs/defining-tools.md, docs/file-tools.md).

export * from '../tools/index.js';
export { checkJson, isJsonValue, renderJson } from '../json.js';
export { BUILTIN_TOOL_CATALOG, builtinToolNames, type BuiltinToolFactory, type BuiltinToolOptions } from '../builtin-tools/catalog.js';
export { createFileTools, createGrepTool, type FileToolOptions, type GrepToolOptions } from '../builtin-tools/index.js';
export { createBashTool, type BashToolOptions } from '../builtin-tools/bash.js';
export { createWebSearchTool, type WebSearchArgs, type WebSearchOutput, type WebSearchToolOptions } from '../builtin-tools/web-search/web-search-tool.js';
export { WEB_SEARCH_BACKENDS, type SearchBackend, type WebSearchBackendName, type WebSearchConfig } from '../builtin-tools/web-search/backend.js';
export { createTaskTool, TASK_DESCRIPTION, type AgentService, type SubagentOutcome, type SubagentRequest, type TaskArgs } from '../builtin-tools/task.js';
export { createGoalDoneTool, GOAL_DONE_TOOL_NAME, type GoalDoneArgs } from '../builtin-tools/goal-done.js';
