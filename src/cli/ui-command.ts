// `ptc ui`: the local web app (docs/ui.md). This module builds the commander command with `ptc run`'s
// model and policy flags plus `--port` and `--approve`; it imports only commander and types, so
// registering it costs `ptc --help` nothing, and the server is loaded when the command runs.

import { Command, Option } from 'commander';
import { collect, fraction, integer, policyFromFlags, WATCH_HELP, type AgentFlags, type PolicyFlags } from './flags.js';

export interface UiCommandIo {
  /** Where the URL is printed (stdout). */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stops the server; default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
}

type UiFlags = PolicyFlags & Omit<AgentFlags, 'resume' | 'continue'> & { port: number };

/** The `ui` command; the lead's `ptc` program adds it with `program.addCommand(buildUiCommand())`. */
export function buildUiCommand(io: UiCommandIo = processIo()): Command {
  return new Command('ui')
    .description('a local web app: chat with a preset, see each run_code program and its sub-calls, approve writes, replay sessions')
    .addOption(new Option('--preset <name|path>', 'the preset selected when the page opens (ptc presets list)').default('ptc'))
    .addOption(new Option('--plugin <file>', 'append a plugin row: a plugin file or package (repeatable)').argParser(collect))
    .addOption(new Option('--mcp-config <file>', 'append an mcp row: the MCP servers of a config file (repeatable)').argParser(collect))
    .addOption(new Option('--cwd <dir>', 'workspace (default: current directory)'))
    .option('--timeout <ms>', 'program deadline in ms (wall time, includes awaited tool calls)', integer('--timeout', 1, Number.MAX_SAFE_INTEGER))
    .addOption(new Option('--sandbox <mode>', 'required | auto | off').choices(['required', 'auto', 'off']).default('auto'))
    .option('--allow-read <path>', 'widen the read policy (repeatable)', collect)
    .option('--allow-write <path>', 'widen the write policy (repeatable)', collect)
    .option('--allow-net', 'allow network from programs and tools')
    .option('--protect <path>', 'keep a path read-only for programs and ask before the file tools write it, besides .git and .ptc (repeatable)', collect)
    .option('--model <provider:id>', 'the model the page starts with, e.g. deepseek:deepseek-chat, openai:gpt-4.1')
    .option('--base-url <url>', 'any OpenAI-compatible endpoint (then --model is the model id)')
    .option('--max-steps <n>', 'stop each turn after this many model requests', integer('--max-steps', 1, Number.MAX_SAFE_INTEGER))
    .option('--context-window <tokens>', "the model's context window, when the catalog does not know it (docs/compaction.md)", integer('--context-window', 1024, Number.MAX_SAFE_INTEGER))
    .option('--compact-threshold <fraction>', 'compact when a request would pass this fraction of the window (default 0.8)', fraction('--compact-threshold'))
    .option('--session-dir <dir>', 'where the JSONL session logs are (default ~/.ptc/sessions, env PTC_HOME)')
    .addOption(new Option('--approve <policy>', 'which calls ask in the page first: never | writes | all').choices(['never', 'writes', 'all']).default('writes'))
    .option('--plan', 'new sessions start in plan mode (the page has a toggle; docs/plan-mode.md)')
    .option('--watch', WATCH_HELP)
    .addOption(new Option('--port <n>', 'port on 127.0.0.1 (default 0: a free one)').argParser(integer('--port', 0, 65535)).default(0))
    .action(async (o: UiFlags) => {
      await runUi(o, io);
    });
}

async function runUi(o: UiFlags, io: UiCommandIo): Promise<void> {
  const [{ harnessOptionsOf }, { resolveSessionDir }, { startUiServer }] = await Promise.all([
    import('./commands.js'),
    import('../session/index.js'),
    import('../ui/server.js'),
  ]);
  const { json: _json, ...policy } = policyFromFlags(o);
  const harness = harnessOptionsOf(policy);
  const { preset: _preset, ...perTurn } = harness;
  const server = await startUiServer({
    harness: { ...perTurn, cwd: harness.cwd ?? process.cwd() },
    defaultPreset: o.preset,
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.apiKeyEnv !== undefined ? { apiKeyEnv: o.apiKeyEnv } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
    ...(o.compactThreshold !== undefined ? { compactThreshold: o.compactThreshold } : {}),
    env: io.env,
    sessionDir: resolveSessionDir({ ...(o.sessionDir !== undefined ? { sessionDir: o.sessionDir } : {}), env: io.env }),
    approve: o.approve,
    ...(o.plan === true ? { plan: true } : {}),
    port: o.port,
  });
  io.stdout(`ptc ui: open ${server.url}\n`);
  io.stderr('ptc ui: the token in that URL is required for every request; Ctrl-C stops the server (running turns end as aborted).\n');
  const signal = io.signal ?? processSignal();
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
}

function processIo(): UiCommandIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
  };
}

function processSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    controller.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}
