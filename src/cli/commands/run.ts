// `ptc run [task]`: the agent on one task against a model provider (src/cli/agent-commands.ts).

import type { Command } from 'commander';
import { addAgentOptions, addPolicyOptions, agentFromFlags, withSignals, type CliIo } from '../command-options.js';
import { policyFromFlags, type AgentFlags, type PolicyFlags } from '../flags.js';
import { addGoalOptions, goalFromFlags, type GoalFlags } from '../goal-flags.js';
import { askWorkspaceTrust, terminalQuestionIo } from '../trust-command.js';

export function register(program: Command, { print }: CliIo): void {
  addAgentOptions(
    addGoalOptions(addPolicyOptions(program.command('run').description('run the agent on a task against a model provider').argument('[task]', 'what the agent should do (optional with --goal or a --continue of an open goal)'))),
    'never',
    true,
  )
    .option('--json', 'print a final JSON summary {sessionId, sessionFile, text, steps, usage, context}')
    .action(async (task: string | undefined, o: PolicyFlags & AgentFlags & GoalFlags) => {
      // --json is for scripts: no question; an untrusted workspace preset is refused (docs/presets.md, "Trust").
      if (o.json !== true) await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runRunCommand } = await import('../agent-commands.js');
      await withSignals(async (signal) =>
        print(
          await runRunCommand({
            task: task ?? '',
            ...goalFromFlags(o),
            ...policyFromFlags(o),
            ...agentFromFlags(o),
            env: process.env,
            signal,
            writeText: (text) => void process.stdout.write(text),
            ...(process.stderr.isTTY ? { writeProgress: (line: string) => void process.stderr.write(`${line}\n`) } : {}),
          }),
        ),
      );
    });
}
