// One task's harness: the preset `ptc-m3tooleval` or `standard-m3tooleval`, built in code (rows
// node-runtime + tool-presentation, then the m3tooleval plugin applied with the task's name), and
// the prompt the original benchmark gave, minus the tool list (the wire or the SDK carries it).
// docs/eval.md, "Presets".

import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { AGENT_ROWS } from '../../agent/agent-rows.js';
import { createHarness, type Harness } from '../../harness.js';
import type { PtcRuntime, SandboxMode } from '../../ptc-runtime/types.js';
import type { PresetFile, PresetRow } from '../../presets/preset-file.js';
import { m3toolevalPlugin } from './plugin.js';
import { dataDir, type M3Task } from './tasks.js';

/** `ptc` presents the task's tools through run_code; `standard` as native function calls. */
export type Presentation = 'ptc' | 'standard';

export const PRESENTATIONS: readonly Presentation[] = ['ptc', 'standard'];

/** The system prompt's base section for the benchmark (the coding-agent wording does not fit it). */
export const EVAL_INSTRUCTIONS = [
  'You are solving a task with the tools provided. Use them to find what you need.',
  "When you are done, reply without a tool call and output the result using 'Answer: your answer'.",
  'Please ONLY output the answer (e.g., single number), without any other text.',
].join(' ');

/** The user message: the original prompt's instruction and answer lines. */
export function taskPrompt(task: M3Task): string {
  return [
    `Instruction: ${task.instruction.trimEnd()}`,
    "When you are done, output the result using 'Answer: your answer'",
    'Please ONLY output the answer (e.g., single number), without any other text.',
  ].join('\n');
}

function presetOf(presentation: Presentation): PresetFile {
  const file = path.join(dataDir(), `${presentation}-m3tooleval (built by ptc eval)`);
  const row = (index: number, name: string, config?: unknown): PresetRow => ({
    index,
    name,
    ...(config !== undefined ? { config } : {}),
    at: file,
    baseDir: dataDir(),
  });
  return presentation === 'ptc'
    ? {
        name: 'ptc-m3tooleval',
        description: 'The M3ToolEval task tools through run_code.',
        file,
        rows: [row(1, 'node-runtime'), row(2, 'tool-presentation', { mode: 'ptc' })],
      }
    : {
        name: 'standard-m3tooleval',
        description: 'The M3ToolEval task tools as native function calls.',
        file,
        rows: [row(1, 'tool-presentation', { mode: 'native' })],
      };
}

export interface TaskHarnessOptions {
  readonly cwd: string;
  readonly sandbox?: SandboxMode;
  readonly timeoutMs?: number;
  /** A runtime shared across tasks (the caller closes it); default: one per harness. */
  readonly runtime?: PtcRuntime;
}

/** Assembles the harness of one task run: fresh tools (and browser state) every time. */
export async function createTaskHarness(task: M3Task, presentation: Presentation, options: TaskHarnessOptions): Promise<Harness> {
  const harness = await createHarness({
    // The agent's row kinds, so the loop is the `loop` row's (src/agent/agent-rows.ts).
    rowKinds: AGENT_ROWS,
    cwd: options.cwd,
    preset: presetOf(presentation),
    sandbox: options.sandbox ?? 'auto',
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.runtime ? { runtime: options.runtime } : {}),
  });
  try {
    const handle = harness.ctx.plugin(m3toolevalPlugin, { task: task.name });
    if ((await handle.settled()) !== 'active') {
      throw new ConfigError(`Cannot load the M3ToolEval tools of ${task.name}: ${handle.error instanceof Error ? handle.error.message : String(handle.error)}`);
    }
    harness.ctx.on('system-prompt/assemble', (assembly) => ({
      ...assembly,
      sections: assembly.sections
        .filter((s) => s.id !== 'workspace')
        .map((s) => (s.id === 'base' ? { ...s, text: EVAL_INSTRUCTIONS } : s)),
    }));
    return harness;
  } catch (error) {
    await harness.dispose();
    throw error;
  }
}
