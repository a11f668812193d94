// `ptc chat` (and `ptc` alone on a terminal): a conversation on this terminal (src/chat/).

import type { Command } from 'commander';
import { addAgentOptions, addPolicyOptions, agentFromFlags, type CliIo } from '../command-options.js';
import { policyFromFlags, WATCH_HELP, type AgentFlags, type PolicyFlags } from '../flags.js';
import { askWorkspaceTrust, terminalQuestionIo } from '../trust-command.js';

export function register(program: Command, { print }: CliIo): void {
  addAgentOptions(addPolicyOptions(program.command('chat').description('a conversation with the agent on this terminal (also `ptc` alone on a terminal)').option('--watch', WATCH_HELP)), 'writes', true).action(
    async (o: PolicyFlags & AgentFlags) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runChat } = await import('../chat.js');
      const { json: _json, ...policy } = policyFromFlags(o);
      const code = await runChat({
        ...policy,
        ...agentFromFlags(o),
        env: process.env,
        input: process.stdin,
        output: process.stdout,
        errorOutput: process.stderr,
      });
      print({ stdout: '', exitCode: code === 130 ? 130 : code === 0 ? 0 : 1 });
    },
  );
}
