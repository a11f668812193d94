// `ptc sessions list|show|rm`: the session logs (src/cli/agent-commands.ts, sessions-rm-command.ts).

import type { Command } from 'commander';
import type { CliIo } from '../command-options.js';
import { positiveInteger } from '../flags.js';

export function register(program: Command, { print }: CliIo): void {
  const sessions = program.command('sessions').description('read session logs');
  sessions
    .command('list')
    .description('list sessions: id, start time, preset, model, steps, outcome')
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (o: { sessionDir?: string }) => {
      const { runSessionsList } = await import('../agent-commands.js');
      print(runSessionsList({ ...o, env: process.env }));
    });
  sessions
    .command('show')
    .description('show a session; with --request <step>, the messages and tools of that request, rebuilt from the log')
    .argument('<id>', 'session id (a unique prefix works)')
    .option('--request <step>', 'rebuild the request of this step (from 1)', positiveInteger('--request'))
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (id: string, o: { request?: number; sessionDir?: string }) => {
      const { runSessionsShow } = await import('../agent-commands.js');
      print(runSessionsShow({ ...o, id, env: process.env }));
    });
  sessions
    .command('rm')
    .description('remove a session: its log and its spill directory')
    .argument('<id>', 'session id (a unique prefix works)')
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (id: string, o: { sessionDir?: string }) => {
      const { runSessionsRemove } = await import('../sessions-rm-command.js');
      print(runSessionsRemove({ ...o, id, env: process.env }));
    });
  sessions.exitOverride();
  for (const command of sessions.commands) command.exitOverride();
}
