// `ptc trust [dir]` and `ptc trust --revoke [dir]` (docs/presets.md, "Trust"): the list of what a
// workspace would load on the host, recorded in `$PTC_HOME/trust.json` against its digest. Also the
// one question a terminal command asks before it loads an untrusted workspace's preset. This module
// imports only commander and types; the work is loaded when a command runs (README, "CLI").

import { Command } from 'commander';
import type { CommandOutput } from './commands.js';

export interface TrustIo {
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The `trust` command; `print` is the program's printer (exit code included). */
export function buildTrustCommand(print: (out: CommandOutput) => void, io: TrustIo = { env: process.env }): Command {
  return new Command('trust')
    .description("list what a workspace's .ptc presets, plugin files, packages and MCP commands would run on this computer, and trust exactly that")
    .argument('[dir]', 'the workspace (default: current directory)')
    .option('--revoke', 'forget the trust given to this workspace')
    .action(async (dir: string | undefined, o: { revoke?: boolean }) => {
      print(await runTrustCommand({ ...(dir !== undefined ? { dir } : {}), revoke: o.revoke === true, env: io.env }));
    });
}

export interface TrustCommandOptions {
  readonly dir?: string;
  readonly revoke: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Prints the list, then records it (typing the command is the consent); `--revoke` forgets it. */
export async function runTrustCommand(options: TrustCommandOptions): Promise<CommandOutput> {
  const [{ checkWorkspace }, { checkWorkspaceTrust }, { describeWorkspaceConfig }, { recordTrust, revokeTrust }, { ptcHome }] = await Promise.all([
    import('./commands.js'),
    import('../trust/workspace-trust.js'),
    import('../trust/workspace-config.js'),
    import('../trust/trust-store.js'),
    import('../presets/resolve-preset.js'),
  ]);
  const workspace = checkWorkspace(options.dir);
  const home = ptcHome({ env: options.env });
  const trust = checkWorkspaceTrust(workspace, { env: options.env });
  if (options.revoke) {
    const removed = revokeTrust(home, trust.config.workspace);
    return { stdout: removed ? `Revoked trust in ${trust.config.workspace}.\n` : `${trust.config.workspace} was not trusted; nothing to revoke.\n`, exitCode: 0 };
  }
  if (trust.state === 'nothing') {
    return { stdout: `${trust.config.workspace} has nothing that would load (no .ptc/presets, no package rows resolved from it); nothing to trust.\n`, exitCode: 0 };
  }
  const list = describeWorkspaceConfig(trust.config);
  if (trust.state === 'trusted') return { stdout: `${list}\nAlready trusted, with exactly these files (${trust.store}).\n`, exitCode: 0 };
  const store = recordTrust(home, trust.config.workspace, trust.config.digest);
  const before = trust.state === 'changed' ? ' (it changed since it was last trusted)' : '';
  return { stdout: `${list}\nTrusted ${trust.config.workspace}${before}; recorded in ${store}. A change to any of these files asks again.\n`, exitCode: 0 };
}

export interface TrustQuestionIo {
  /** Whether someone can answer (stdin and stderr are terminals). */
  readonly interactive: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Writes the list (stderr). */
  readonly write: (text: string) => void;
  /** Asks and returns the answer line. */
  readonly ask: (question: string) => Promise<string>;
}

/**
 * Before a terminal command (tools, sdk, presets show, run, chat) loads preset `value`: when it is
 * an untrusted workspace's preset, shows what would load and asks once (y/N); yes records trust in
 * exactly what was shown. Anything else leaves the decision to createHarness, which refuses or uses
 * the shipped preset of that name.
 */
export async function askWorkspaceTrust(value: string, cwd: string | undefined, io: TrustQuestionIo): Promise<void> {
  if (!io.interactive) return;
  const [{ checkWorkspace }, { checkWorkspaceTrust, untrustedReason }, { describeWorkspaceConfig }, { recordTrust }, resolve] = await Promise.all([
    import('./commands.js'),
    import('../trust/workspace-trust.js'),
    import('../trust/workspace-config.js'),
    import('../trust/trust-store.js'),
    import('../presets/resolve-preset.js'),
  ]);
  let workspace: string;
  try {
    workspace = checkWorkspace(cwd);
    if (resolve.isPresetPath(value) || resolve.resolvePreset(value, { workspace, env: io.env }).origin !== 'workspace') return;
  } catch {
    return; // createHarness reports it
  }
  let trust: ReturnType<typeof checkWorkspaceTrust>;
  try {
    trust = checkWorkspaceTrust(workspace, { env: io.env });
  } catch {
    return; // too much to review: createHarness says so
  }
  if (trust.state === 'trusted' || trust.state === 'nothing') return;
  io.write(`ptc: preset ${value} comes from this workspace, and ${untrustedReason(trust)}.\n${describeWorkspaceConfig(trust.config)}\n`);
  const answer = (await io.ask('Trust this workspace and load it? [y/N] ')).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') return;
  const store = recordTrust(resolve.ptcHome({ env: io.env }), trust.config.workspace, trust.config.digest);
  io.write(`ptc: trusted ${trust.config.workspace} (${store}).\n`);
}

/** The terminal's question: stdin and stderr must both be terminals. */
export function terminalQuestionIo(env: Readonly<Record<string, string | undefined>>): TrustQuestionIo {
  return {
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    env,
    write: (text) => void process.stderr.write(text),
    ask: async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  };
}
