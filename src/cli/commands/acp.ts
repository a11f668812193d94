// `ptc acp`: the agent for editors over the Agent Client Protocol on stdin/stdout (docs/acp.md).

import type { Command } from 'commander';
import { addAgentOptions, addPolicyOptions, packageVersion, withSignals } from '../command-options.js';
import { policyFromFlags, WATCH_HELP, type AgentFlags, type PolicyFlags } from '../flags.js';

export function register(program: Command): void {
  addAgentOptions(addPolicyOptions(program.command('acp').description('the agent for editors: Agent Client Protocol on stdin/stdout (Zed and others)').option('--watch', WATCH_HELP)), 'writes', false).action(
    async (o: PolicyFlags & AgentFlags) => {
      // stdout is the protocol: serveAcpStdio keeps everyone else off it.
      const [{ harnessOptionsOf }, { serveAcpStdio }, { resolveSessionDir }] = await Promise.all([
        import('../commands.js'),
        import('../../acp/serve-stdio.js'),
        import('../../session/index.js'),
      ]);
      await withSignals(async (signal) => {
        const { json: _json, cwd: _cwd, ...policy } = policyFromFlags(o);
        const { cwd: _harnessCwd, ...harness } = harnessOptionsOf(policy);
        await serveAcpStdio({
          harness,
          ...(o.model !== undefined ? { model: o.model } : {}),
          ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
          ...(o.apiKeyEnv !== undefined ? { apiKeyEnv: o.apiKeyEnv } : {}),
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
          ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
          ...(o.compactThreshold !== undefined ? { compactThreshold: o.compactThreshold } : {}),
          env: process.env,
          approve: o.approve,
          ...(o.plan === true ? { plan: true } : {}),
          sessionDir: resolveSessionDir({ ...(o.sessionDir !== undefined ? { sessionDir: o.sessionDir } : {}), env: process.env }),
          version: packageVersion(),
          signal,
          projectConfig: true,
        });
      });
    },
  );
}
