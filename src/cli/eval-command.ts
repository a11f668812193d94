// `ptc eval m3tooleval`: the commander command; the runner (src/eval/) does the work and is loaded
// only when the command runs. docs/eval.md.

import path from 'node:path';
import { Command, Option } from 'commander';
import { list, positiveInteger } from './flags.js';
import { ConfigError } from '../errors.js';
import type { CommandOutput } from './commands.js';
import type { EvalOutcome } from '../eval/run-dir.js';
import { readQueuedRunSettings, runQueuedEval } from '../eval/queue/lazy-queue.js';

const SUITES = ['m3tooleval'] as const;
const PRESETS = ['ptc', 'standard'] as const;
type Presentation = (typeof PRESETS)[number];

export interface EvalFlags {
  replay?: boolean;
  preset?: string[];
  presets?: string[];
  tasks?: string[];
  model?: string;
  baseUrl?: string;
  /** Set from a config file's `apiKeyEnv` (config-options.ts). */
  apiKeyEnv?: string;
  maxSteps?: number;
  jobs?: number;
  out?: string;
  resume?: string;
  queue?: string;
  sandbox: 'required' | 'auto' | 'off';
  json?: boolean;
}

function presentations(flags: EvalFlags): Presentation[] {
  const named = [...(flags.preset ?? []), ...(flags.presets ?? [])];
  const chosen = named.length === 0 ? [...PRESETS] : [...new Set(named)];
  for (const name of chosen) {
    if (!(PRESETS as readonly string[]).includes(name)) {
      throw new ConfigError(`ptc eval compares the presentations ptc and standard; "${name}" is not one of them (use --presets ptc,standard).`);
    }
  }
  return chosen as Presentation[];
}

function defaultOut(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return path.join('eval-runs', `m3tooleval-${stamp}`);
}

/** Runs `ptc eval <suite>` with parsed flags; returns what to print. */
export async function runEvalCommand(suite: string, flags: EvalFlags, io: { env: Readonly<Record<string, string | undefined>>; signal?: AbortSignal; writeProgress?: (line: string, final: boolean) => void; writeLog?: (line: string) => void }): Promise<CommandOutput> {
  if (!(SUITES as readonly string[]).includes(suite)) throw new ConfigError(`Unknown eval suite "${suite}"; available: ${SUITES.join(', ')}.`);
  const { readRunSettings, DEFAULT_EVAL_MAX_STEPS, DEFAULT_REPLAY_MAX_STEPS } = await import('../eval/run-dir.js');
  const { progressLine } = await import('../eval/progress.js');
  const { aggregate } = await import('../eval/summary.js');
  const fs = await import('node:fs');

  // --resume keeps the settings the run started with; only --jobs may change. It takes the run
  // directory, or with --queue the id of a run in the queue (docs/eval.md, "Queue mode").
  let resumeDir = flags.resume;
  let resumed = undefined as ReturnType<typeof readRunSettings> | undefined;
  if (flags.resume !== undefined) {
    if (fs.existsSync(flags.resume) || flags.queue === undefined) resumed = readRunSettings(flags.resume);
    else {
      resumed = { ...(await readQueuedRunSettings(flags.queue, flags.resume)), queue: { url: flags.queue, runId: flags.resume } };
      resumeDir = flags.out ?? path.join('eval-runs', flags.resume);
    }
  }
  const queueUrl = flags.queue ?? resumed?.queue?.url;
  if (queueUrl !== undefined && flags.jobs !== undefined) throw new ConfigError('--jobs is for local runs; with --queue each worker takes --concurrency <n> (ptc worker --help).');
  if (flags.queue === undefined && queueUrl?.includes(':***@')) {
    throw new ConfigError(`The run in ${flags.resume} was queued at ${queueUrl}, whose password run.json does not keep; pass the full URL again with --queue.`);
  }
  const replay = resumed?.replay ?? flags.replay === true;
  const { queue: _queue, ...resumedSettings } = resumed ?? {};
  const settings = resumed
    ? (resumedSettings as typeof resumed)
    : {
        suite: 'm3tooleval' as const,
        presets: presentations(flags),
        ...(flags.tasks && flags.tasks.length > 0 ? { tasks: flags.tasks } : {}),
        replay,
        ...(flags.model !== undefined ? { model: flags.model } : {}),
        ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
        maxSteps: flags.maxSteps ?? (replay ? DEFAULT_REPLAY_MAX_STEPS : DEFAULT_EVAL_MAX_STEPS),
      };
  if (replay && !resumed && (flags.model !== undefined || flags.baseUrl !== undefined)) {
    throw new ConfigError('--replay needs no model: drop --model/--base-url, or drop --replay to run against the model.');
  }
  const out = resumeDir ?? flags.out ?? defaultOut();
  const onProgress = io.writeProgress ? { onProgress: (p: Parameters<typeof progressLine>[0]) => io.writeProgress!(progressLine(p), p.done === p.total) } : {};
  const failedJobs: { jobId: string; reason: string }[] = [];
  let runId: string | undefined;
  let outcome: EvalOutcome;
  if (queueUrl !== undefined) {
    const queued = await runQueuedEval({
      ...settings,
      out,
      queueUrl,
      resume: flags.resume !== undefined,
      ...(resumed?.queue ? { runId: resumed.queue.runId } : {}),
      sandbox: flags.sandbox,
      ...(io.signal ? { signal: io.signal } : {}),
      ...onProgress,
      log: io.writeLog ?? ((line: string) => void process.stderr.write(`${line}\n`)),
    });
    failedJobs.push(...queued.failed);
    runId = queued.runId;
    outcome = queued;
  } else {
    const { runEval } = await import('../eval/runner.js');
    outcome = await runEval({
      ...settings,
      out,
      resume: flags.resume !== undefined,
      jobs: flags.jobs ?? 1,
      sandbox: flags.sandbox,
      env: io.env,
      ...(flags.apiKeyEnv !== undefined ? { apiKeyEnv: flags.apiKeyEnv } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      ...onProgress,
    });
  }
  const aborted = io.signal?.aborted === true;
  const failedText = failedJobs.length > 0 ? `ptc: ${failedJobs.length} job(s) failed on the workers (no result written for them); fix the cause and rerun them with --resume ${outcome.dir}\n` : '';
  const tail = `${aborted ? 'ptc: aborted; resume with --resume ' + outcome.dir + '\n' : ''}${failedText}results: ${path.join(outcome.dir, 'results.jsonl')}\nsummary: ${outcome.summaryFile}\n`;
  if (flags.json) {
    const byPreset = Object.fromEntries(settings.presets.map((p) => [p, aggregate(outcome.results.filter((r) => r.preset === p))]));
    return { stdout: `${JSON.stringify({ dir: outcome.dir, ran: outcome.ran, ...(runId !== undefined ? { runId, failedJobs } : {}), presets: byPreset, results: outcome.results }, null, 2)}\n`, stderr: tail, exitCode: aborted || failedJobs.length > 0 ? 1 : 0 };
  }
  return { stdout: fs.readFileSync(outcome.summaryFile, 'utf8'), stderr: tail, exitCode: aborted || failedJobs.length > 0 ? 1 : 0 };
}

/** The `eval` command for the `ptc` program; `print` receives the command's output. */
export function evalCommand(print: (out: CommandOutput) => void): Command {
  return new Command('eval')
    .description('run a benchmark suite (m3tooleval) through the ptc and standard presentations; --replay runs offline')
    .argument('<suite>', `the suite: ${SUITES.join(', ')}`)
    .option('--replay', 'no model: replay reference solutions through the real loop, tools and runtime')
    .option('--preset <name>', 'ptc | standard (repeatable; default both)', list)
    .option('--presets <names>', 'comma-separated, e.g. ptc,standard (runs both, interleaved per task)', list)
    .option('--tasks <globs>', "task names to run, comma-separated globs, e.g. 'web_browsing/*' (default all 82)", list)
    .option('--model <provider:id>', 'as ptc run: deepseek:deepseek-chat (default), openai:<id>, anthropic:<id>')
    .option('--base-url <url>', 'any OpenAI-compatible endpoint (then --model is the model id)')
    .option('--max-steps <n>', `model requests per task (default 10, the paper's limit; 200 with --replay)`, positiveInteger('--max-steps'))
    .option('--jobs <n>', 'tasks run in parallel (default 1)', positiveInteger('--jobs'))
    .option('--out <dir>', 'run directory: results.jsonl, summary.md, summary.svg, sessions/ (default eval-runs/m3tooleval-<time>)')
    .option('--resume <dir|run-id>', 'continue the run in <dir>: skip what its results.jsonl has, keep its settings (with --queue, a run id also works)')
    .option('--queue <url>', 'queue mode: one BullMQ job per task and preset on Redis at redis://host:port[/db]; ptc worker processes run them')
    .addOption(new Option('--sandbox <mode>', 'required | auto | off, for ptc programs').choices(['required', 'auto', 'off']).default('auto'))
    .option('--json', 'print {dir, ran, presets, results} as JSON instead of the summary (with --queue also runId, failedJobs)')
    .exitOverride()
    .action(async (suite: string, flags: EvalFlags) => {
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const tty = process.stderr.isTTY === true;
        print(
          await runEvalCommand(suite, flags, {
            env: process.env,
            signal: controller.signal,
            ...(tty ? { writeProgress: (line: string, final: boolean) => void process.stderr.write(`\r\x1b[2K${line}${final ? '\n' : ''}`) } : {}),
            writeLog: (line: string) => void process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${line}\n`),
          }),
        );
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
