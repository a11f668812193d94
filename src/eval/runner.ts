// `ptc eval m3tooleval`: runs the agent on each selected task in each preset (interleaved per task),
// N at a time, one session log per run, one results.jsonl line per run as it ends; skips runs a
// resumed directory already has; writes summary.md and its SVG chart at the end. Live runs talk to
// the provider `--model`/`--base-url` name; replay runs to the replay model on loopback. Each run is
// src/eval/task-run.ts, which queue workers call too (src/eval/queue/, docs/eval.md "Queue mode").
// docs/eval.md.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { resolveModel } from '../llm/index.js';
import type { SandboxMode } from '../ptc-runtime/types.js';
import type { Presentation } from './m3tooleval/task-harness.js';
import { loadTasks, selectTasks, type M3Task } from './m3tooleval/tasks.js';
import { appendResult, readResults, resultKey } from './results.js';
import { orderedResults, RUN_FILE, settingsOf, type EvalOutcome, type EvalProgress, type EvalSettings } from './run-dir.js';
import { writeSummary } from './summary.js';
import { openTaskRunner } from './task-run.js';

export {
  DEFAULT_EVAL_MAX_STEPS,
  DEFAULT_REPLAY_MAX_STEPS,
  orderedResults,
  readRunSettings,
  RUN_FILE,
  type EvalOutcome,
  type EvalProgress,
  type EvalSettings,
} from './run-dir.js';

export interface EvalOptions extends EvalSettings {
  /** The run directory: results.jsonl, summary.md, summary.svg, sessions/, run.json. */
  readonly out: string;
  /** Keep the runs the directory already has and do only the missing ones. */
  readonly resume?: boolean;
  readonly jobs?: number;
  readonly sandbox?: SandboxMode;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The variable holding the key instead of the provider's (a config file's `apiKeyEnv`, docs/config.md); not kept in run.json. */
  readonly apiKeyEnv?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: EvalProgress) => void;
}

export async function runEval(options: EvalOptions): Promise<EvalOutcome> {
  if (options.presets.length === 0) throw new ConfigError('Name at least one preset: --presets ptc,standard.');
  const env = options.env ?? process.env;
  const tasks = selectTasks(loadTasks(), options.tasks);
  if (tasks.length === 0) throw new ConfigError(`No M3ToolEval task matches --tasks ${(options.tasks ?? []).join(',')}; names look like trade_calculator/* or web_browsing/price_of_*.`);
  // A missing key fails here, before any run, with the variable to set (never a faked result).
  const live = options.replay ? undefined : resolveModel({ ...(options.model !== undefined ? { model: options.model } : {}), ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}), ...(options.apiKeyEnv !== undefined ? { apiKeyVar: options.apiKeyEnv } : {}), env: { ...env } });

  const dir = path.resolve(options.out);
  fs.mkdirSync(path.join(dir, 'workspace'), { recursive: true });
  const settings = settingsOf(options);
  if (!options.resume || !fs.existsSync(path.join(dir, RUN_FILE))) fs.writeFileSync(path.join(dir, RUN_FILE), `${JSON.stringify(settings, null, 2)}\n`);

  const done = new Set(readResults(dir).map(resultKey));
  const jobs: { task: M3Task; preset: Presentation }[] = [];
  for (const task of tasks) for (const preset of options.presets) if (!done.has(resultKey({ task: task.name, preset }))) jobs.push({ task, preset });

  const total = tasks.length * options.presets.length;
  const startedAt = Date.now();
  const initial = total - jobs.length;
  let finished = initial;
  let succeeded = readResults(dir).filter((r) => r.success && options.presets.includes(r.preset) && tasks.some((t) => t.name === r.task)).length;
  options.onProgress?.({ done: finished, total, succeeded, startedAt, initial });

  const cwd = path.join(dir, 'workspace');
  const runner = await openTaskRunner({ dir, cwd, replay: options.replay, ptc: options.presets.includes('ptc'), ...(options.sandbox ? { sandbox: options.sandbox } : {}) });
  try {
    let cursor = 0;
    const worker = async (): Promise<void> => {
      while (cursor < jobs.length && !options.signal?.aborted) {
        const job = jobs[cursor++]!;
        const result = await runner.run(job.task, job.preset, { ...(live ? { live } : {}), maxSteps: options.maxSteps, ...(options.signal ? { signal: options.signal } : {}) });
        if (options.signal?.aborted && result.reason === 'aborted') return;
        appendResult(dir, result);
        finished++;
        if (result.success) succeeded++;
        options.onProgress?.({ done: finished, total, succeeded, startedAt, initial, last: result });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs ?? 1, jobs.length || 1)) }, worker));
  } finally {
    await runner.close();
  }

  const results = orderedResults(dir, tasks);
  const summaryFile = writeSummary(dir, results, { ...settings, model: live?.label ?? (options.replay ? 'replay (reference solutions)' : settings.model) });
  return { dir, results, ran: jobs.length, summaryFile };
}
