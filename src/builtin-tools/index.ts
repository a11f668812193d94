// The workspace file tools as one list, sorted by name, sharing the harness's one WorkspacePolicy.

import type { AnyToolDefinition } from '../tools/types.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createReadTool } from './read.js';
import { createWriteTool } from './write.js';
import type { FileToolOptions } from './path-resolver.js';

export { createEditTool, type EditArgs, type EditOutput } from './edit.js';
export { compileGlob, createGlobTool, type GlobArgs, type GlobMatcher, type GlobOutput } from './glob.js';
export { createGrepTool, type GrepArgs, type GrepMatch, type GrepOutput, type GrepToolOptions } from './grep.js';
export { createReadTool, type ReadArgs, type ReadOutput } from './read.js';
export { createWriteTool, type WriteArgs, type WriteOutput } from './write.js';
export {
  createPathResolver,
  type FileToolOptions,
  type OpenedPath,
  type PathAccess,
  type PathResolver,
} from './path-resolver.js';

/** `edit`, `glob`, `grep`, `read`, `write` for one resolved policy (its workspace and `--allow-*` widenings). */
export function createFileTools(options: FileToolOptions): AnyToolDefinition[] {
  const tools: AnyToolDefinition[] = [
    createReadTool(options),
    createWriteTool(options),
    createEditTool(options),
    createGlobTool(options),
    createGrepTool(options),
  ];
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
