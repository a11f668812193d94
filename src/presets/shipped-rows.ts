// The rows a preset file can name without a path or a package: the shipped row kinds (row-kind.ts,
// docs/presets.md "Shipped rows"). The rows most presets have are imported with this module (the
// service rows are light: the model client loads the AI SDK, the session store its files' code, at
// their first use); the others (MCP, the creator's tools, Skills, workflows, Python) when a preset names them, so a
// command loads none of their modules otherwise (bench/cli-start.ts counts them). The agent's `loop`
// row is the agent layer's (src/agent/agent-rows.ts); here it is the stand-in of service-rows.ts.

import type { Plugin } from '../context/context.js';
import { loggerPlugin } from '../context/logger.js';
import { llmPlugin } from '../llm/llm-plugin.js';
import { mcpRowKind } from '../mcp/client/row-kind.js';
import { sessionsPlugin } from '../session/sessions-plugin.js';
import { builtinToolsPlugin } from './builtin-tools-plugin.js';
import { nodeRuntimePlugin } from './node-runtime-plugin.js';
import type { RowKinds } from '../row-kind.js';
import { unboundLoopPlugin } from './service-rows.js';
import { toolPresentationPlugin } from './tool-presentation-plugin.js';

export const SHIPPED_ROWS: RowKinds = Object.freeze({
  'builtin-tools': { load: () => builtinToolsPlugin as Plugin<unknown> },
  'node-runtime': { load: () => nodeRuntimePlugin as Plugin<unknown> },
  'tool-presentation': { load: (config: unknown) => toolPresentationPlugin(config) as Plugin<unknown> },
  'creator-tools': { load: async () => (await import('./creator-tools-plugin.js')).creatorToolsPlugin as Plugin<unknown> },
  mcp: mcpRowKind,
  skills: { load: async () => (await import('../skills/skills-plugin.js')).skillsPlugin as Plugin<unknown> },
  workflows: { load: async () => (await import('../workflows/workflows-plugin.js')).workflowsPlugin as Plugin<unknown> },
  'python-runtime': { load: async () => (await import('./python-runtime-plugin.js')).pythonRuntimePlugin as Plugin<unknown> },
  logger: { load: () => loggerPlugin as Plugin<unknown> },
  llm: { load: () => llmPlugin as Plugin<unknown> },
  sessions: { load: () => sessionsPlugin as Plugin<unknown> },
  loop: { load: () => unboundLoopPlugin as Plugin<unknown> },
});
