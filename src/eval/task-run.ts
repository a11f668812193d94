// One eval run of one task in one presentation: the function a local `ptc eval` and a queue
// worker (`ptc worker`) both call, so a worker runs exactly what a local run runs. A TaskRunner
// owns what the runs of one process share: the replay model server and the Node runtime whose warm
// children serve every ptc run. docs/eval.md, "Queue mode".

import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { loopOf } from '../agent/loop-service.js';
import { modelClientOf } from '../llm/ai-sdk-client.js';
import type { ResolvedModel } from '../llm/index.js';
import type { ModelClient } from '../llm/llm-service.js';
import { createNodeRuntime } from '../languages/typescript/runtime/index.js';
import type { SandboxMode } from '../ptc-runtime/types.js';
import type { SessionWriter } from '../session/writer.js';
import { checkAnswer, extractAnswer } from './m3tooleval/check-answer.js';
import { toolsForTask } from './m3tooleval/plugin.js';
import { pyStr } from './m3tooleval/py-value.js';
import { referenceProgram } from './m3tooleval/reference-solutions.js';
import { createTaskHarness, taskPrompt, type Presentation } from './m3tooleval/task-harness.js';
import type { M3Task } from './m3tooleval/tasks.js';
import { ptcScript, standardScript, startReplayServer, type ReplayServer } from './replay-model.js';
import type { TaskResult } from './results.js';
import { tapUsage } from './usage-tap.js';

export interface TaskRunnerOptions {
  /** Where `sessions/` goes; a result's `sessionFile` is relative to it. */
  readonly dir: string;
  /** The cwd of the runs (an empty directory). */
  readonly cwd: string;
  /** Start the replay model (runs then take no `live` model). */
  readonly replay: boolean;
  /** Start the shared Node runtime (some run is in the ptc presentation). */
  readonly ptc: boolean;
  readonly sandbox?: SandboxMode;
}

export interface TaskRunOptions {
  /** The model of a live run; ignored in replay. */
  readonly live?: ResolvedModel;
  readonly maxSteps: number;
  readonly signal?: AbortSignal;
}

export interface TaskRunner {
  run(task: M3Task, preset: Presentation, options: TaskRunOptions): Promise<TaskResult>;
  close(): Promise<void>;
}

export async function openTaskRunner(options: TaskRunnerOptions): Promise<TaskRunner> {
  const replay = options.replay ? await startReplayServer() : undefined;
  const runtime = options.ptc ? createNodeRuntime({ sandbox: options.sandbox ?? 'auto' }) : undefined;
  return {
    run: (task, preset, run) => runTask(task, preset, { dir: options.dir, cwd: options.cwd, ...(options.sandbox ? { sandbox: options.sandbox } : {}), ...run, replay, runtime }),
    close: async () => {
      await replay?.close();
      await runtime?.close();
    },
  };
}

interface RunContext extends Omit<TaskRunnerOptions, 'replay' | 'ptc'>, TaskRunOptions {
  readonly replay: ReplayServer | undefined;
  readonly runtime: ReturnType<typeof createNodeRuntime> | undefined;
}

async function runTask(task: M3Task, preset: Presentation, ctx: RunContext): Promise<TaskResult> {
  const started = Date.now();
  const harness = await createTaskHarness(task, preset, {
    cwd: ctx.cwd,
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    ...(preset === 'ptc' && ctx.runtime ? { runtime: ctx.runtime } : {}),
  });
  let replayId: string | undefined;
  let writer: SessionWriter | undefined;
  try {
    // The session store, the loop and (in replay) the model client are the harness's services (docs/architecture.md, "Services").
    const store = await harness.ctx.sessions.open(path.join(ctx.dir, 'sessions'));
    writer = store.start();
    let client: ModelClient;
    if (ctx.replay) {
      const program = referenceProgram(task);
      const stringTools = new Set(toolsForTask(task).filter((t) => isStringSchema(t.outputSchema)).map((t) => t.name));
      replayId = ctx.replay.add(preset === 'ptc' ? ptcScript(program) : standardScript(program, stringTools));
      client = await harness.ctx.llm.open({ baseUrl: ctx.replay.baseUrl, model: replayId, env: {} });
    } else {
      // A live model is resolved once per process (the runner's fail-fast check, the worker's cache).
      client = modelClientOf(ctx.live!);
    }
    const tap = tapUsage(client);
    const result = await loopOf(harness.ctx).run({
      scope: harness.ctx,
      cwd: ctx.cwd,
      preset: harness.preset.name,
      model: tap.model,
      task: taskPrompt(task),
      sink: writer,
      sessionId: writer.sessionId,
      sessions: store,
      maxSteps: ctx.maxSteps,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    writer.close();
    const { events } = store.read(writer.sessionId);
    let toolCalls = 0;
    let subCalls = 0;
    let toolResultTokens = 0;
    for (const event of events) {
      if (event.type === 'tool/call') toolCalls++;
      else if (event.type === 'tool/ptc-dispatch') subCalls++;
      else if (event.type === 'tool/result') toolResultTokens += countTokens(event.content);
    }
    const answer = result.reason === 'completed' ? extractAnswer(result.text) : '';
    return {
      task: task.name,
      domain: task.domain,
      preset,
      success: result.reason === 'completed' && checkAnswer(answer, task.expected),
      answer,
      expected: pyStr(task.expected),
      turns: result.steps,
      reason: result.reason,
      inputTokens: tap.totals.inputTokens,
      outputTokens: tap.totals.outputTokens,
      cachedInputTokens: tap.totals.cachedInputTokens,
      toolCalls,
      subCalls,
      toolResultTokens,
      wallMs: Date.now() - started,
      sessionFile: path.relative(ctx.dir, writer.file),
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
  } finally {
    writer?.close();
    if (replayId) ctx.replay?.remove(replayId);
    await harness.dispose();
  }
}

function isStringSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'string';
}
