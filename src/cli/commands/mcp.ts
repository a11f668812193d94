// `ptc mcp serve`: code mode for MCP clients, one run_code tool on stdio (docs/mcp.md).

import type { Command } from 'commander';
import { addPolicyOptions, packageVersion, withSignals } from '../command-options.js';
import { policyFromFlags, positiveInteger, type PolicyFlags } from '../flags.js';

export function register(program: Command): void {
  const mcp = program.command('mcp').description('Model Context Protocol: serve code mode to MCP clients');
  // Every policy flag of exec (and --mcp-config, which addPolicyOptions carries) applies to the served preset.
  addPolicyOptions(mcp.command('serve').description('a stdio MCP server exposing one tool, run_code, with the SDK of the preset in its description'))
    .option('--max-parallel <n>', 'overlapping concurrency-safe sub-calls (default 10, 1 = serial)', positiveInteger('--max-parallel'))
    .action(async (o: PolicyFlags & { maxParallel?: number }) => {
      // stdout is the protocol: the command prints nothing itself, and serveMcpStdio keeps everyone else off it.
      const [{ harnessOptionsOf }, { serveMcpStdio }] = await Promise.all([import('../commands.js'), import('../../mcp/server/serve-stdio.js')]);
      await withSignals(async (signal) => {
        const { json: _json, ...policy } = policyFromFlags(o);
        const harness = harnessOptionsOf({ ...policy, ...(o.maxParallel !== undefined ? { maxParallelSubCalls: o.maxParallel } : {}) });
        await serveMcpStdio({ harness, version: packageVersion(), signal });
      });
    });
  mcp.exitOverride();
  for (const command of mcp.commands) command.exitOverride();
}
