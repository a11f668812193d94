// The run directory of `ptc eval`, without the machinery that runs tasks: its settings file
// (run.json, read by --resume), the shapes a run reports, and its results in task order. Kept apart
// from runner.ts so queue mode's eval side loads no agent, model client or runtime. docs/eval.md.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { Presentation } from './m3tooleval/task-harness.js';
import type { M3Task } from './m3tooleval/tasks.js';
import { readResults, type TaskResult } from './results.js';

// The step budgets live in limits.ts; re-exported here, where the commands read a run's settings.
export { DEFAULT_EVAL_MAX_STEPS, DEFAULT_REPLAY_MAX_STEPS } from './limits.js';

export interface EvalSettings {
  readonly suite: 'm3tooleval';
  readonly presets: readonly Presentation[];
  /** Task-name globs; all tasks without any. */
  readonly tasks?: readonly string[];
  readonly replay: boolean;
  /** `provider:id`, or with baseUrl the model id (as `ptc run`). */
  readonly model?: string;
  readonly baseUrl?: string;
  readonly maxSteps: number;
  /** Queue mode: where the run's jobs are (the URL without its password) and the run id naming the queue. */
  readonly queue?: { readonly url: string; readonly runId: string };
}

/** The settings `run.json` keeps, from a run's options (the same for a local and a queued run). */
export function settingsOf(options: Omit<EvalSettings, 'suite' | 'queue'>, queue?: EvalSettings['queue']): EvalSettings {
  return {
    suite: 'm3tooleval',
    presets: options.presets,
    ...(options.tasks ? { tasks: options.tasks } : {}),
    replay: options.replay,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    maxSteps: options.maxSteps,
    ...(queue !== undefined ? { queue } : {}),
  };
}

export interface EvalProgress {
  readonly done: number;
  readonly total: number;
  readonly succeeded: number;
  readonly startedAt: number;
  /** Runs the directory had before this call (resumed), for the ETA. */
  readonly initial?: number;
  readonly last?: TaskResult;
}

export interface EvalOutcome {
  readonly dir: string;
  /** Every result in the directory (resumed ones included), in task order. */
  readonly results: readonly TaskResult[];
  /** How many runs this call made (the rest were there already). */
  readonly ran: number;
  readonly summaryFile: string;
}

export const RUN_FILE = 'run.json';

/** The settings a run directory was started with (for --resume). */
export function readRunSettings(dir: string): EvalSettings {
  const file = path.join(dir, RUN_FILE);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as EvalSettings;
  } catch {
    throw new ConfigError(`${dir} is not an eval run directory (no readable ${RUN_FILE}); --resume takes the --out directory of an earlier ptc eval.`);
  }
}

/** The directory's results of these tasks, in task order then preset. */
export function orderedResults(dir: string, tasks: readonly M3Task[]): TaskResult[] {
  const order = new Map(tasks.map((t, i) => [t.name, i]));
  return readResults(dir)
    .filter((r) => order.has(r.task))
    .sort((a, b) => order.get(a.task)! - order.get(b.task)! || a.preset.localeCompare(b.preset));
}
