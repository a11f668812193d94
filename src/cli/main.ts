#!/usr/bin/env node
// The `ptc` command. Thin: it parses flags and calls the library. Exit codes (README, "CLI"):
// 0 success, 1 the program or agent failed, 2 usage or configuration error — never a stack trace
// for a user error.

//
// Startup cost (bench/cli-start.ts, issue 27): `ptc --help` must start about as fast as `node -e 0`.
// This module therefore imports only commander, the dependency-free error classes and the small
// builders of the commands; each action imports the modules its command needs when it runs
// (`await import(...)`), and those keep MCP, ai, ajv and the UI off the paths that do not use them.
// Type-only imports are erased and cost nothing. Adding a command: a `program.command(...)` block
// below whose action does `await import('./your-file.js')` and calls into it.

import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { HarnessError } from '../errors.js';
import type { CommandOutput } from './commands.js';
import type { ExtraPluginRow } from '../harness.js';
import { buildConfigCommand } from './config-command.js';
import { evalCommand } from './eval-command.js';
import { workerCommand } from './worker-command.js';
import { collect, fraction, integer, policyFromFlags, positiveInteger, WATCH_HELP, type AgentFlags, type PolicyFlags } from './flags.js';
import { addGoalOptions, goalFromFlags, type GoalFlags } from './goal-flags.js';
import { buildSkillsCommand } from './skills-command.js';
import { askWorkspaceTrust, buildTrustCommand, terminalQuestionIo } from './trust-command.js';
import { buildUiCommand } from './ui-command.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

const presetOption = () =>
  new Option('--preset <name|path>', 'a preset name (ptc presets list) or a path to a preset file').default('ptc');
const pluginOption = () => new Option('--plugin <file>', 'append a plugin row: a plugin file or package (repeatable)').argParser(collect);
const mcpConfigOption = () =>
  new Option('--mcp-config <file>', 'append an mcp row: the MCP servers of a config file { "mcpServers": {...} } (repeatable)').argParser(collect);
const cwdOption = () => new Option('--cwd <dir>', 'workspace (default: current directory)');
const approveOption = (fallback: 'never' | 'writes') =>
  new Option('--approve <policy>', 'which calls need a yes first: never | writes | all (docs/approvals.md)').choices(['never', 'writes', 'all']).default(fallback);

function addAgentOptions(command: Command, approveDefault: 'never' | 'writes', continuable: boolean): Command {
  command
    .option('--model <provider:id>', 'e.g. deepseek:deepseek-chat, openai:gpt-4.1, anthropic:claude-sonnet-4-5')
    .option('--base-url <url>', 'any OpenAI-compatible endpoint (then --model is the model id)')
    .option('--max-steps <n>', 'stop a turn after this many model requests', positiveInteger('--max-steps'))
    .option('--context-window <tokens>', "the model's context window, when the catalog does not know it (docs/compaction.md)", integer('--context-window', 1024, Number.MAX_SAFE_INTEGER))
    .option('--compact-threshold <fraction>', 'compact when a request would pass this fraction of the window (default 0.8)', fraction('--compact-threshold'))
    .option('--session-dir <dir>', 'where the JSONL session logs go (default ~/.ptc/sessions, env PTC_HOME)')
    .addOption(approveOption(approveDefault))
    .option('--plan', 'start in plan mode: no writes, the model ends with a plan to approve (docs/plan-mode.md)');
  if (continuable) {
    command
      .option('--resume <id>', 'continue this session (an id or unique prefix, ptc sessions list) with a new turn')
      .option('--continue', 'continue the latest session of this workspace');
  }
  return command;
}

function agentFromFlags(o: AgentFlags) {
  return {
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.apiKeyEnv !== undefined ? { apiKeyEnv: o.apiKeyEnv } : {}),
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
    ...(o.compactThreshold !== undefined ? { compactThreshold: o.compactThreshold } : {}),
    ...(o.sessionDir !== undefined ? { sessionDir: o.sessionDir } : {}),
    approve: o.approve,
    ...(o.plan === true ? { plan: true } : {}),
    ...(o.resume !== undefined ? { resume: o.resume } : {}),
    ...(o.continue === true ? { continueLatest: true } : {}),
  };
}

function addPolicyOptions(command: Command): Command {
  return command
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .option('--timeout <ms>', 'program deadline in ms (wall time, includes awaited tool calls)', positiveInteger('--timeout'))
    .addOption(new Option('--sandbox <mode>', 'required | auto | off').choices(['required', 'auto', 'off']).default('auto'))
    .option('--allow-read <path>', 'widen the read policy (repeatable)', collect)
    .option('--allow-write <path>', 'widen the write policy (repeatable)', collect)
    .option('--allow-net', 'allow network from programs and tools')
    .option('--protect <path>', 'keep a path read-only for programs and ask before the file tools write it, besides .git and .ptc (repeatable)', collect);
}


function buildProgram(print: (out: CommandOutput) => void): Command {
  const program = new Command('ptc')
    .description('Programmatic tool calling: the model writes one TypeScript program against a typed SDK of its tools.')
    .version(packageVersion(), '-V, --version', 'print the ptc-harness version')
    .showHelpAfterError('(run `ptc --help` for usage)')
    .exitOverride()
    // Before any action imports its modules (they are most of what a command compiles); --help and
    // --version run no action and load nothing for it.
    .hook('preAction', async () => (await import('./compile-cache.js')).enableCompileCache());

  addPolicyOptions(
    program
      .command('exec')
      .description("run a PTC program body against a preset's tools (no model needed)")
      .argument('<file>', 'file holding the program body, or - for standard input'),
  )
    .option('--max-parallel <n>', 'overlapping concurrency-safe sub-calls (default 10, 1 = serial)', positiveInteger('--max-parallel'))
    .addOption(new Option('--lang <lang>', 'the program language (default: py for a .py file, else ts)').choices(['ts', 'py']))
    .option('--json', 'print one JSON object on stdout and nothing else there')
    .action(async (file: string, o: PolicyFlags & { maxParallel?: number; lang?: 'ts' | 'py' }) => {
      // Read first, so a TypeScript program's type eraser loads on a worker while the commands load.
      const ahead = await execAhead(file, o.lang);
      const { runExecCommand } = await import('./commands.js');
      print(
        await runExecCommand({
          file,
          ...ahead,
          ...policyFromFlags(o),
          ...(o.maxParallel !== undefined ? { maxParallel: o.maxParallel } : {}),
          ...(o.lang !== undefined ? { lang: o.lang } : {}),
          stdin: readStdin,
          // Each log line reaches stderr as the program writes it; stdout keeps the value alone.
          writeLog: (line) => void process.stderr.write(`${line}\n`),
        }),
      );
    });

  addAgentOptions(
    addGoalOptions(addPolicyOptions(program.command('run').description('run the agent on a task against a model provider').argument('[task]', 'what the agent should do (optional with --goal or a --continue of an open goal)'))),
    'never',
    true,
  )
    .option('--json', 'print a final JSON summary {sessionId, sessionFile, text, steps, usage, context}')
    .action(async (task: string | undefined, o: PolicyFlags & AgentFlags & GoalFlags) => {
      // --json is for scripts: no question; an untrusted workspace preset is refused (docs/presets.md, "Trust").
      if (o.json !== true) await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runRunCommand } = await import('./agent-commands.js');
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        print(
          await runRunCommand({
            task: task ?? '',
            ...goalFromFlags(o),
            ...policyFromFlags(o),
            ...agentFromFlags(o),
            env: process.env,
            signal: controller.signal,
            writeText: (text) => void process.stdout.write(text),
            ...(process.stderr.isTTY ? { writeProgress: (line: string) => void process.stderr.write(`${line}\n`) } : {}),
          }),
        );
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  addAgentOptions(addPolicyOptions(program.command('chat').description('a conversation with the agent on this terminal (also `ptc` alone on a terminal)').option('--watch', WATCH_HELP)), 'writes', true).action(
    async (o: PolicyFlags & AgentFlags) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runChat } = await import('./chat.js');
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

  addAgentOptions(addPolicyOptions(program.command('acp').description('the agent for editors: Agent Client Protocol on stdin/stdout (Zed and others)').option('--watch', WATCH_HELP)), 'writes', false).action(
    async (o: PolicyFlags & AgentFlags) => {
      // stdout is the protocol: serveAcpStdio keeps everyone else off it.
      const [{ harnessOptionsOf }, { serveAcpStdio }, { resolveSessionDir }] = await Promise.all([
        import('./commands.js'),
        import('../acp/serve-stdio.js'),
        import('../session/index.js'),
      ]);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
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
          signal: controller.signal,
          projectConfig: true,
        });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
  );

  // The config files fill what the command line did not give (docs/config.md).
  program.hook('preAction', async (_program, action) => {
    const { applyConfig } = await import('./config-options.js');
    await applyConfig(action, process.env, (line) => void process.stderr.write(`${line}\n`));
  });
  program.addCommand(buildConfigCommand(print));
  program.addCommand(buildUiCommand());
  program.addCommand(buildTrustCommand(print));
  program.addCommand(buildSkillsCommand(print));
  program.addCommand(evalCommand(print));
  program.addCommand(workerCommand(print));

  const sessions = program.command('sessions').description('read session logs');
  sessions
    .command('list')
    .description('list sessions: id, start time, preset, model, steps, outcome')
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (o: { sessionDir?: string }) => {
      const { runSessionsList } = await import('./agent-commands.js');
      print(runSessionsList({ ...o, env: process.env }));
    });
  sessions
    .command('show')
    .description('show a session; with --request <step>, the messages and tools of that request, rebuilt from the log')
    .argument('<id>', 'session id (a unique prefix works)')
    .option('--request <step>', 'rebuild the request of this step (from 1)', positiveInteger('--request'))
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (id: string, o: { request?: number; sessionDir?: string }) => {
      const { runSessionsShow } = await import('./agent-commands.js');
      print(runSessionsShow({ ...o, id, env: process.env }));
    });
  sessions
    .command('rm')
    .description('remove a session: its log and its spill directory')
    .argument('<id>', 'session id (a unique prefix works)')
    .option('--session-dir <dir>', 'session directory (default ~/.ptc/sessions, env PTC_HOME)')
    .action(async (id: string, o: { sessionDir?: string }) => {
      const { runSessionsRemove } = await import('./sessions-rm-command.js');
      print(runSessionsRemove({ ...o, id, env: process.env }));
    });
  sessions.exitOverride();
  for (const command of sessions.commands) command.exitOverride();

  program
    .command('sdk')
    .description('print the SDK prompt section the model would see')
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .addOption(new Option('--lang <lang>', "SDK language (default: the preset runtime's)").choices(['ts', 'py']))
    .action(async (o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; lang?: 'ts' | 'py' }) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runSdkCommand } = await import('./commands.js');
      print(await runSdkCommand({ ...workspaceFlags(o), ...(o.lang !== undefined ? { lang: o.lang } : {}) }));
    });

  program
    .command('tools')
    .description('list the visible tools and their schemas')
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .option('--json', 'print the tools as JSON (name, description, inputSchema, outputSchema, executionMode)')
    .action(async (o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; json?: boolean }) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runToolsCommand } = await import('./commands.js');
      print(await runToolsCommand({ ...workspaceFlags(o), ...(o.json ? { json: true } : {}) }));
    });

  const mcp = program.command('mcp').description('Model Context Protocol: serve code mode to MCP clients');
  // Every policy flag of exec (and --mcp-config, which addPolicyOptions carries) applies to the served preset.
  addPolicyOptions(mcp.command('serve').description('a stdio MCP server exposing one tool, run_code, with the SDK of the preset in its description'))
    .option('--max-parallel <n>', 'overlapping concurrency-safe sub-calls (default 10, 1 = serial)', positiveInteger('--max-parallel'))
    .action(async (o: PolicyFlags & { maxParallel?: number }) => {
      // stdout is the protocol: the command prints nothing itself, and serveMcpStdio keeps everyone else off it.
      const [{ harnessOptionsOf }, { serveMcpStdio }] = await Promise.all([import('./commands.js'), import('../mcp/server/serve-stdio.js')]);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const { json: _json, ...policy } = policyFromFlags(o);
        const harness = harnessOptionsOf({ ...policy, ...(o.maxParallel !== undefined ? { maxParallelSubCalls: o.maxParallel } : {}) });
        await serveMcpStdio({ harness, version: packageVersion(), signal: controller.signal });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
  mcp.exitOverride();
  for (const command of mcp.commands) command.exitOverride();

  const presets = program.command('presets').description('the presets that resolve here (shipped, workspace .ptc/presets, $PTC_HOME/presets)');
  presets
    .command('list')
    .description('name, where it comes from, description')
    .addOption(cwdOption())
    .action(async (o: { cwd?: string }) => {
      const { runPresetsList } = await import('./preset-commands.js');
      print(runPresetsList({ ...o, env: process.env }));
    });
  presets
    .command('show')
    .description('the rows of a preset, its tools and their presentation')
    .argument('<name>', 'a preset name or a path to a preset file')
    .addOption(pluginOption())
    .addOption(cwdOption())
    .option('--json', 'print the assembled preset as JSON')
    .action(async (name: string, o: { plugin?: string[]; cwd?: string; json?: boolean }) => {
      await askWorkspaceTrust(name, o.cwd, terminalQuestionIo(process.env));
      const { runPresetsShow } = await import('./preset-commands.js');
      print(await runPresetsShow({ name, ...workspaceFlags({ ...o, preset: name }), ...(o.json ? { json: true } : {}), env: process.env }));
    });
  presets.exitOverride();
  for (const command of presets.commands) command.exitOverride();

  for (const command of program.commands) command.exitOverride();
  return program;
}

function workspaceFlags(o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; configRows?: ExtraPluginRow[] }) {
  return {
    preset: o.preset,
    plugins: o.plugin ?? [],
    mcpConfigs: o.mcpConfig ?? [],
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    ...(o.configRows !== undefined ? { configRows: o.configRows } : {}),
  };
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * `ptc exec`'s program read up front and, for TypeScript, its strip started on a worker thread
 * (stripProgramAhead in strip.ts): loading the eraser then overlaps loading the harness's modules.
 * A file that cannot be read is left to runExecCommand, which reads it again and says why.
 */
async function execAhead(file: string, lang: 'ts' | 'py' | undefined): Promise<{ source?: string; stripping?: Promise<void> }> {
  let source: string;
  if (file === '-') source = await readStdin();
  else {
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      return {};
    }
  }
  const { execLanguageOf } = await import('../ptc-runtime/program-language.js');
  if (execLanguageOf(file, lang) !== 'typescript') return { source };
  const { stripProgramAhead } = await import('../ptc-runtime-node/strip.js');
  return { source, stripping: stripProgramAhead(source) };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((out) => {
    process.stdout.write(out.stdout);
    if (out.stderr) process.stderr.write(out.stderr);
    exitCode = out.exitCode;
  });
  try {
    // `ptc` alone on a terminal is a conversation.
    const args = argv.length === 0 && process.stdin.isTTY && process.stdout.isTTY ? ['chat'] : [...argv];
    await program.parseAsync(args, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message: --help and --version exit 0, a missing command or a
      // bad flag is a usage error.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (error instanceof HarnessError) {
      process.stderr.write(`ptc: ${error.message}\n`);
      return error.code === 'CONFIG' ? EXIT_USAGE : EXIT_FAILED;
    }
    process.stderr.write(`ptc: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_FAILED;
  }
}

// A closed pipe on stdout (`ptc exec ... | head`) is the reader's choice, not our failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
