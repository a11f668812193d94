// One workspace's project file as the lists it adds to a harness (docs/config.md): its approval
// rules, its MCP servers as an `mcp` row, its protected paths. For ptc acp, whose sessions each name
// a workspace; the CLI commands read the project file with the user's (src/cli/config-options.ts).

import path from 'node:path';
import type { ApprovalRule } from '../approvals/approval-rules.js';
import type { ExtraPluginRow } from '../harness.js';
import { loadProjectConfig } from '../trust/trusted-config.js';

export interface ProjectLayer {
  readonly rules: readonly ApprovalRule[];
  readonly rows: readonly ExtraPluginRow[];
  readonly protect: readonly string[];
}

/** The lists of `<workspace>/.ptc/config.yaml` when the workspace is trusted; a note (and nothing) otherwise. */
export async function projectLayer(
  workspace: string,
  env: Readonly<Record<string, string | undefined>>,
  onNote: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<ProjectLayer | undefined> {
  const project = await loadProjectConfig(path.resolve(workspace), env);
  if (project === undefined) return undefined;
  if (project.ignored !== undefined) {
    onNote(`ptc: note: ignored ${project.file} (${project.ignored}).`);
    return undefined;
  }
  const loaded = project.loaded;
  if (loaded === undefined) return undefined;
  const servers = loaded.values.mcpServers ?? {};
  return {
    rules: loaded.rules,
    rows: Object.keys(servers).length > 0 ? [{ name: 'mcp', config: { mcpServers: servers }, at: `mcpServers of ${loaded.file}` }] : [],
    protect: (loaded.values.protect ?? []).map((p) => path.resolve(workspace, p)),
  };
}
