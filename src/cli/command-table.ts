// The `ptc` commands, in the order `ptc --help` lists them. Each row loads its command's own module
// when the command line names it (src/cli/program.ts), so a command never pays for another's
// options or imports. Adding a command: one row here, whose `load` imports your file and returns a
// function that registers the command on the program.

import type { Command } from 'commander';
import type { CliIo } from './command-options.js';

/** Registers one command (and its subcommands) on the `ptc` program. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

export interface CommandRow {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandRow[] = [
  { name: 'exec', load: async () => (await import('./commands/exec.js')).register },
  { name: 'exec-server', load: async () => adding((await import('./exec-server-command.js')).buildExecServerCommand) },
  { name: 'run', load: async () => (await import('./commands/run.js')).register },
  { name: 'chat', load: async () => (await import('./commands/chat.js')).register },
  { name: 'acp', load: async () => (await import('./commands/acp.js')).register },
  { name: 'config', load: async () => adding((await import('./config-command.js')).buildConfigCommand) },
  { name: 'ui', load: async () => adding((await import('./ui-command.js')).buildUiCommand, false) },
  { name: 'trust', load: async () => adding((await import('./trust-command.js')).buildTrustCommand) },
  { name: 'skills', load: async () => adding((await import('./skills-command.js')).buildSkillsCommand) },
  { name: 'workflows', load: async () => adding((await import('./workflows-command.js')).buildWorkflowsCommand) },
  { name: 'eval', load: async () => adding((await import('./eval-command.js')).evalCommand) },
  { name: 'worker', load: async () => adding((await import('./worker-command.js')).workerCommand) },
  { name: 'sessions', load: async () => (await import('./commands/sessions.js')).register },
  { name: 'sdk', load: async () => (await import('./commands/sdk.js')).register },
  { name: 'tools', load: async () => (await import('./commands/tools.js')).register },
  { name: 'mcp', load: async () => (await import('./commands/mcp.js')).register },
  { name: 'presets', load: async () => (await import('./commands/presets.js')).register },
];

/** A command module that builds a standalone Command (the older *-command.ts files): added as it is. */
function adding(build: (print: CliIo['print']) => Command): RegisterCommand;
function adding(build: () => Command, takesPrint: false): RegisterCommand;
function adding(build: (print: CliIo['print']) => Command, takesPrint = true): RegisterCommand {
  return (program, io) => void program.addCommand(takesPrint ? build(io.print) : (build as () => Command)());
}
