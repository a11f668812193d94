// The built-in tools a preset's `builtin-tools` row may name: tool name -> factory given the
// harness's one policy (docs/sandbox.md). Adding a tool to the presets is one row here.

import type { SandboxMode } from '../ptc-runtime/types.js';
import type { WorkspacePolicy } from '../sandbox/index.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { createBashTool } from './bash.js';
import { createPersistentBashTool } from './persistent-bash.js';
import { createStrReplaceEditorTool } from './str-replace-editor.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createReadTool } from './read.js';
import { createTaskTool } from './task.js';
import { createTodoTool } from './todo.js';
import { createWebFetchTool } from './web-fetch.js';
import type { WebSearchConfig } from './web-search/backend.js';
import { createWebSearchTool } from './web-search/web-search-tool.js';
import { createWriteTool } from './write.js';

/** What every built-in tool factory may use: the harness's settings, never a runtime's internals. */
export interface BuiltinToolOptions {
  /** THE policy, resolved once by createHarness. */
  readonly policy: WorkspacePolicy;
  /** The sandbox mode of programs and processes (`--sandbox`). */
  readonly sandbox: SandboxMode;
  /** The config file's `webSearch` (docs/web-tools.md); absent: web_search explains how to set it. */
  readonly webSearch?: WebSearchConfig;
}

export type BuiltinToolFactory = (options: BuiltinToolOptions) => AnyToolDefinition;

export const BUILTIN_TOOL_CATALOG: Readonly<Record<string, BuiltinToolFactory>> = Object.freeze({
  bash: ({ policy, sandbox }) => createBashTool({ policy, sandbox }),
  // The minimal preset's persistent shell: a distinct key, but the tool it makes is named `bash`.
  'bash-session': ({ policy, sandbox }) => createPersistentBashTool({ policy, sandbox }),
  str_replace_editor: ({ policy }) => createStrReplaceEditorTool({ policy }),
  edit: ({ policy }) => createEditTool({ policy }),
  glob: ({ policy }) => createGlobTool({ policy }),
  grep: ({ policy }) => createGrepTool({ policy }),
  read: ({ policy }) => createReadTool({ policy }),
  // Reads the running agent (the `agent` service) at call time: docs/subagents.md.
  task: () => createTaskTool(),
  todo: () => createTodoTool(),
  web_fetch: ({ policy }) => createWebFetchTool({ policy }),
  web_search: ({ policy, webSearch }) => createWebSearchTool({ policy, ...(webSearch !== undefined ? { config: webSearch } : {}) }),
  write: ({ policy }) => createWriteTool({ policy }),
});

/** The names a `builtin-tools` row accepts, sorted. */
export function builtinToolNames(): string[] {
  return Object.keys(BUILTIN_TOOL_CATALOG).sort();
}

export function isBuiltinToolName(name: string): boolean {
  return Object.hasOwn(BUILTIN_TOOL_CATALOG, name);
}
