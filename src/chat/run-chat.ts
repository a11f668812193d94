// `ptc chat` (and `ptc` alone on a terminal): a conversation in one session (docs/chat.md). Each
// message is a turn of the agent loop; the model's text goes to stdout (rendered markdown on a
// terminal), progress, diffs, the status line and approval questions to stderr. A line starting
// with `/` is a slash command and never reaches the model. Ctrl-C during a turn stops it; a second
// Ctrl-C (or one at the prompt) exits with 130. Later turns continue the same log
// (docs/sessions.md); approvals default to `writes` (docs/approvals.md).

import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

import { runGoal, type GoalRunResult } from '../agent/goal.js';
import { runAgent, type AgentRunOptions, type AgentRunResult } from '../agent/loop.js';
import { progressLine } from '../agent/progress-text.js';
import { allowedToolsOf, installApprovals, type ApprovalPolicy } from '../approvals/approvals.js';
import { todoProgressText } from '../builtin-tools/todo.js';
import { installPlanMode, planModeOf, type PlanModeBy } from '../plan-mode/plan-mode.js';
import { reviewPlanInTerminal } from './plan-review-prompt.js';
import { checkWorkspace, harnessOptionsOf, type PolicyOptions } from '../cli/commands.js';
import { goalProgressLine } from '../cli/goal-output.js';
import { ConfigError, HarnessError } from '../errors.js';
import { createHarness, type Harness } from '../harness.js';
import { describeReload } from '../presets/plugin-reload.js';
import { resolveModel, type ResolvedModel } from '../llm/index.js';
import { KNOWN_MODELS } from '../llm/model-catalog.js';
import { MAX_CHAT_SESSIONS_LISTED } from '../limits.js';
import {
  continueSession,
  startSession,
  ensureSessionDir,
  findSession,
  formatSessionList,
  latestSessionIn,
  listSessions,
  readSession,
  resolveSessionDir,
  spillDirPath,
  type SessionEvent,
  type SessionWriter,
} from '../session/index.js';
import { ruleText } from '../approvals/approval-rules.js';
import { sgr } from '../terminal-text.js';
import { listPresetsWithTrust } from '../trust/trusted-preset.js';
import { createAnswerPrinter } from './answer-printer.js';
import { askInTerminal, displayPath } from './approval-prompt.js';
import { completeLine } from './completer.js';
import { renderUnifiedDiff } from './diff-render.js';
import { question } from './readline-question.js';
import { SessionChanges } from './session-changes.js';
import { parseLine, type ChatControl } from './slash-commands.js';
import { statusLineText } from './status-line.js';
import { UsageTally } from './usage-tally.js';
import { createSpillStore } from '../tools/spill.js';

export const EXIT_INTERRUPTED = 130;

export interface ChatOptions extends PolicyOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  /** The variable holding the key instead of the provider's (a config file's `apiKeyEnv`). */
  readonly apiKeyEnv?: string;
  readonly maxSteps?: number;
  /** The model's context window in tokens and the compaction threshold (docs/compaction.md). */
  readonly contextWindow?: number;
  readonly compactThreshold?: number;
  readonly sessionDir?: string;
  readonly approve: ApprovalPolicy;
  /** Start in plan mode (docs/plan-mode.md); a resumed session otherwise keeps the mode it ended in. */
  readonly plan?: boolean;
  /** Continue this session (id, prefix or path) instead of starting one. */
  readonly resume?: string;
  /** Continue the latest session of this workspace. */
  readonly continueLatest?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly input: Readable;
  readonly output: Writable;
  readonly errorOutput: Writable;
}

const PROMPT = '› ';

interface OpenSession {
  writer: SessionWriter;
  history?: readonly SessionEvent[];
}

/** Runs the conversation until EOF, `/exit` or an interrupt; resolves with the exit code. */
export async function runChat(options: ChatOptions): Promise<number> {
  const cwd = checkWorkspace(options.cwd);
  const modelOf = (spec: string | undefined): ResolvedModel =>
    resolveModel({
      ...(spec !== undefined ? { model: spec } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      ...(options.apiKeyEnv !== undefined ? { apiKeyVar: options.apiKeyEnv } : {}),
      env: options.env,
    });
  let model = modelOf(options.model);
  const dir = resolveSessionDir({ ...(options.sessionDir !== undefined ? { sessionDir: options.sessionDir } : {}), env: options.env });
  ensureSessionDir(dir);
  let session: OpenSession | undefined;
  /** Set by `/goal`: the loop runs it as the next turn. */
  let pendingGoal: string | undefined;
  if (options.resume !== undefined || options.continueLatest === true) {
    const continued = continueSession(dir, options.resume ?? latestSessionIn(dir, cwd));
    session = { writer: continued.writer, history: continued.events };
  }
  let harness: Harness;
  try {
    harness = await createHarness(harnessOptionsOf({ ...options, cwd }));
  } catch (error) {
    // Releases the continued session's turn lock.
    session?.writer.close();
    throw error;
  }

  // NO_COLOR (any non-empty value) and a stdout that is no terminal both mean plain text.
  const noColor = (options.env['NO_COLOR'] ?? '') !== '';
  const printMode = !isTty(options.output) ? 'raw' : noColor ? 'escape' : 'render';
  const color = isTty(options.errorOutput) && !noColor;
  const err = (text: string) => void options.errorOutput.write(text);
  // The markdown renderer takes a few hundred ms to load (marked, its terminal renderer, the
  // highlighter's grammars): loaded while the person types the first message, not before the prompt.
  let rendererLoad: Promise<typeof import('./markdown-render.js')> | undefined;
  const tally = new UsageTally();
  const changes = new SessionChanges();
  let policy = options.approve;
  // Plan mode (docs/plan-mode.md): the chat's own state, so a rebuilt harness (/preset, /approve) keeps it.
  let planning: { active: boolean; by: PlanModeBy } = {
    active: options.plan === true || (session?.history !== undefined && planModeOf(session.history)),
    by: options.plan === true ? 'flag' : 'user',
  };
  let meter: { tokens: number; window?: number } | undefined;
  const pendingDiffs = new Map<string, string[]>();
  /** Prints the diffs of call `id` (every pending one without an id: the end of a turn). */
  const printDiffs = (id?: string) => {
    for (const [callId, lines] of pendingDiffs) {
      if (id !== undefined && callId !== id) continue;
      pendingDiffs.delete(callId);
      err(`${lines.join('\n')}\n`);
    }
  };

  const terminal = isTty(options.input) && isTty(options.errorOutput);
  let control: ChatControl | undefined;
  const rl = createInterface({
    input: options.input,
    output: options.errorOutput,
    terminal,
    ...(terminal ? { completer: (line: string) => (control !== undefined ? completeLine(line, control) : [[], line]) } : {}),
  });

  let turn: AbortController | undefined;
  let exitCode: number | undefined;
  const interrupt = () => {
    if (turn !== undefined && !turn.signal.aborted) {
      err('\n^C stopping this step (Ctrl-C again to exit)\n');
      turn.abort();
      return;
    }
    exitCode = EXIT_INTERRUPTED;
    rl.close();
  };
  rl.on('SIGINT', interrupt);
  const onSignal = () => interrupt();
  process.on('SIGINT', onSignal);

  // What the chat hangs on the harness: approvals, the todo plan, the diffs of file changes. Rebuilt
  // with the harness (`/preset`) and with the policy (`/approve`).
  const attach = (h: Harness): (() => Promise<void>) => {
    const removeApprovals = installApprovals(h.ctx, {
      policy,
      approver: (request, signal) => askInTerminal(rl, options.errorOutput, request, signal, { cwd, color }),
      flagHint: '/approve never',
      ...(session?.history !== undefined ? { allowedTools: allowedToolsOf(session.history) } : {}),
    });
    const plan = installPlanMode(h.ctx, {
      active: planning.active,
      by: planning.by,
      reviewer: (proposal, signal) => reviewPlanInTerminal(rl, options.errorOutput, proposal, signal),
    });
    const offPlanMode = h.ctx.on('plan/mode', (change) => {
      planning = { active: change.active, by: change.by };
      if (change.by === 'approval') err('plan approved: plan mode is off, the work starts\n');
    });
    const offTodo = h.ctx.on('tools/result', (event) => {
      const plan = todoProgressText(event);
      if (plan !== undefined) err(`${plan}\n`);
    });
    // A change is heard while its call runs; its diff is printed under the call's progress line.
    const offChange = h.ctx.on('tools/file-change', (event) => {
      changes.record(event);
      const lines = renderUnifiedDiff(displayPath(cwd, event.path), event.oldText, event.newText, { color });
      pendingDiffs.set(event.callId, [...(pendingDiffs.get(event.callId) ?? []), ...lines.map((l) => `${event.parentId !== undefined ? '        ' : '    '}${l}`)]);
    });
    return async () => {
      await removeApprovals();
      await offPlanMode();
      await plan.dispose();
      await offTodo();
      await offChange();
    };
  };
  let detach = attach(harness);

  const closeSession = () => {
    if (session === undefined) return;
    session.writer.close();
    err(`session ${session.writer.sessionId} (${session.writer.file})\n`);
    session = undefined;
  };

  control = {
    cwd,
    color,
    tally,
    changes,
    print: (lines) => err(`${lines.join('\n')}\n`),
    presetName: () => harness.preset.name,
    presetNames: () =>
      listPresetsWithTrust({ workspace: cwd, env: options.env })
        .presets.filter((p) => !p.shadowed && !p.untrusted)
        .map((p) => p.name),
    switchPreset: async (name) => {
      // Built before the old one goes, so a preset that fails (untrusted, invalid) leaves the chat as it was.
      const next = await createHarness(harnessOptionsOf({ ...options, cwd, preset: name }));
      await detach();
      await harness.dispose();
      harness = next;
      detach = attach(harness);
    },
    modelLabel: () => model.label,
    modelCandidates: () => (options.baseUrl !== undefined ? KNOWN_MODELS.map((m) => m.slice(m.indexOf(':') + 1)) : KNOWN_MODELS),
    switchModel: (spec) => {
      model = modelOf(spec);
    },
    approvalPolicy: () => policy,
    approvalRules: () => {
      const rules = options.approvalRules?.rules ?? [];
      return [...rules.filter((r) => r.effect === 'deny'), ...rules.filter((r) => r.effect === 'allow')].map((r) => `${r.effect} ${ruleText(r)} (${r.origin})`);
    },
    planMode: () => planning.active,
    setPlanMode: (active) => {
      const mode = harness.ctx.get('planMode');
      if (mode !== undefined) mode.set(active, 'user');
      planning = { active, by: 'user' };
    },
    setApprovalPolicy: async (next) => {
      policy = next;
      await detach();
      detach = attach(harness);
    },
    sessionId: () => session?.writer.sessionId,
    sessionList: () => {
      const mine = listSessions(dir)
        .filter((s) => s.cwd === cwd && s.parentSessionId === undefined)
        .slice(0, MAX_CHAT_SESSIONS_LISTED);
      if (mine.length === 0) return [`No sessions of ${cwd} in ${dir} yet.`];
      const open = session?.writer.sessionId;
      return [...formatSessionList(mine).trimEnd().split('\n'), ...(open !== undefined ? [`open now: ${open}`] : []), '/resume ID continues one.'];
    },
    clearSession: async () => {
      closeSession();
      changes.clear();
      meter = undefined;
      await detach();
      detach = attach(harness);
    },
    compact: async (focus) => {
      const open = session;
      if (open?.history === undefined) return ['Nothing to compact yet: send a message first.'];
      const { compactSession } = await import('../agent/compact-session.js');
      const result = await compactSession({
        events: open.history,
        sink: open.writer,
        model,
        ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
        ...(focus !== '' ? { focus } : {}),
        spill: createSpillStore({ dir: spillDirPath(path.resolve(dir), open.writer.sessionId) }),
      });
      open.history = readSession(open.writer.file).events;
      const applied = result.events.find((e) => e.type === 'context/compaction');
      const lines: string[] = [];
      if (applied?.type === 'context/compaction') {
        lines.push(`compacted: ${applied.pruned.length} old result${applied.pruned.length === 1 ? '' : 's'} pruned${applied.summary !== undefined ? `, steps before ${applied.keepFromStep} summarised` : ''}; about ${result.tokensBefore} → ${result.tokensAfter} tokens of ${result.window}`);
      }
      if (result.failure !== undefined) lines.push(`the summary failed, nothing of it applied: ${result.failure}`);
      return lines.length > 0 ? lines : ['Nothing to compact: no old results to prune.'];
    },
    startGoal: (objective) => {
      pendingGoal = objective;
    },
    resumeSession: async (idOrPrefix) => {
      const open = session;
      const target = idOrPrefix ?? latestOtherSession(dir, cwd, open?.writer.sessionId);
      if (open !== undefined && findSession(dir, target) === open.writer.file) {
        throw new ConfigError(`Session ${open.writer.sessionId} is the one open; /sessions lists the others.`);
      }
      const continued = continueSession(dir, target);
      closeSession();
      session = { writer: continued.writer, history: continued.events };
      changes.clear();
      meter = lastRequestMeterOf(continued.events);
      planning = { active: planModeOf(continued.events), by: 'user' };
      await detach();
      detach = attach(harness);
      return continued.sessionId;
    },
  };

  try {
    if (session !== undefined) err(`Continuing session ${session.writer.sessionId}.\n`);
    if (planning.active) err('Plan mode is on: no writes; the model ends with a plan for you to approve (/plan turns it off).\n');
    err(`ptc chat — preset ${harness.preset.name}, model ${model.label}, approvals "${policy}". /help lists commands; Ctrl-C stops a step; Ctrl-D or /exit quits.\n`);
    if (printMode === 'render') rendererLoad = import('./markdown-render.js');
    for (;;) {
      const line = await question(rl, PROMPT);
      if (line === undefined || exitCode !== undefined) break;
      const typed = line.trim();
      if (typed === '') continue;
      const parsed = parseLine(typed);
      if (parsed.kind === 'unknown') {
        err(`${parsed.error}\n`);
        continue;
      }
      if (parsed.kind === 'command') {
        try {
          if ((await parsed.command.run(parsed.args, control)) === 'exit') break;
        } catch (error) {
          err(`ptc: ${error instanceof Error ? error.message : String(error)}\n`);
        }
        if (pendingGoal === undefined) continue;
      }
      // A message is one turn; `/goal` runs rounds of turns until the goal is met or a budget runs out.
      const goal = pendingGoal;
      pendingGoal = undefined;
      if (session === undefined) session = { writer: startSession({ dir }) };
      // Edited plugin files are reloaded here, between turns (docs/plugin-reload.md).
      if (options.watchPlugins === true) for (const reload of describeReload(await harness.reloadPlugins())) err(`ptc: ${reload}\n`);
      const open = session;
      const turnModel = model;
      const renderer = rendererLoad === undefined ? undefined : (await rendererLoad).createMarkdownRenderer;
      const printer = createAnswerPrinter(options.output, renderer !== undefined ? { render: renderer } : printMode === 'escape' ? 'escape' : 'raw', () => columnsOf(options.output));
      turn = new AbortController();
      let result: AgentRunResult;
      let goalResult: GoalRunResult | undefined;
      try {
        const turnOptions: Omit<AgentRunOptions, 'task'> = {
          scope: harness.ctx,
          cwd,
          preset: harness.preset.name,
          model: turnModel,
          sink: open.writer,
          sessionId: open.writer.sessionId,
          sessionDir: dir,
          signal: turn.signal,
          ...(open.history !== undefined ? { history: open.history } : {}),
          ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
          ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
          ...(options.compactThreshold !== undefined ? { compactThreshold: options.compactThreshold } : {}),
          onText: (delta) => printer.text(delta),
          onProgress: (event) => {
            const text = progressLine(event);
            if (text === undefined) return;
            printer.end();
            err(`${text}\n`);
            if (event.kind === 'sub-call-end' || event.kind === 'tool-end') printDiffs(event.id);
          },
          onRetry: (r) => err(`retrying in ${r.delayMs} ms: ${r.message}\n`),
        };
        if (goal !== undefined) {
          goalResult = await runGoal({
            ...turnOptions,
            goal: { objective: goal },
            onGoalEvent: (event) => {
              printer.end();
              err(`${goalProgressLine(event)}\n`);
            },
          });
          // No round ran (stopped before the first): an aborted turn with nothing in it.
          result = goalResult.last ?? { reason: 'aborted', text: '', steps: 0, usage: goalResult.usage };
        } else {
          result = await runAgent({ ...turnOptions, task: parsed.kind === 'message' ? parsed.text : '' });
        }
      } catch (error) {
        // A request that cannot fit the window ends the turn (logged), not the conversation: the
        // person can /compact, /clear or switch to a model with a larger window (docs/compaction.md).
        if (!(error instanceof HarnessError) || error.code !== 'CONTEXT') throw error;
        result = { reason: 'error', text: '', steps: 0, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, error: `${error.message} In this chat: /compact, or /clear for a new session.` };
      } finally {
        turn = undefined;
        printer.end();
        printDiffs();
      }
      if (result.reason === 'max-steps') err(`(stopped after step ${result.steps} without a final answer; raise --max-steps)\n`);
      else if (result.reason === 'aborted') err('(step stopped)\n');
      else if (result.reason === 'error') err(`ptc: ${result.error ?? 'the model request failed'}\n`);
      // The next turn's history is the log as written: what `sessions show --request` would rebuild.
      open.history = readSession(open.writer.file).events;
      tally.add(turnModel.label, turnModel.modelId, goalResult?.usage ?? result.usage);
      if (goalResult !== undefined && goalResult.outcome === 'aborted') err('(goal stopped; /goal again starts a new one, ptc run --continue goes on with this one)\n');
      meter = lastRequestMeterOf(open.history) ?? meter;
      const total = tally.total();
      const status = statusLineText({
        preset: harness.preset.name,
        modelLabel: model.label,
        modelId: model.modelId,
        inputTokens: total.inputTokens,
        outputTokens: total.outputTokens,
        cost: total.cost,
        lastRequestTokens: meter?.tokens,
        ...(meter?.window !== undefined ? { contextWindow: meter.window } : {}),
        approve: policy,
      });
      err(`${color ? sgr.dim(status) : status}\n`);
    }
  } finally {
    process.off('SIGINT', onSignal);
    rl.close();
    await detach();
    closeSession();
    await harness.dispose();
  }
  return exitCode ?? 0;
}

/** Prompt plus answer tokens of the last model response in `events`, when its usage was reported. */
/**
 * The meter of the latest request (docs/compaction.md): the provider's prompt-plus-answer count when
 * it reported one, else the estimate logged with the request; with the window it was measured against.
 */
function lastRequestMeterOf(events: readonly SessionEvent[]): { tokens: number; window?: number } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type !== 'llm/request') continue;
    const response = events.slice(i + 1).find((e) => e.type === 'llm/response' && e.step === event.step);
    const usage = response?.type === 'llm/response' ? response.usage : undefined;
    const tokens = usage?.inputTokens !== undefined ? usage.inputTokens + (usage.outputTokens ?? 0) : event.context?.estimatedTokens;
    if (tokens === undefined) return undefined;
    return { tokens, ...(event.context?.window !== undefined ? { window: event.context.window } : {}) };
  }
  return undefined;
}

/** The newest top-level session of `cwd` other than `open`; CONFIG when there is none. */
function latestOtherSession(dir: string, cwd: string, open: string | undefined): string {
  const candidates = listSessions(dir).filter((s) => s.cwd === cwd && s.parentSessionId === undefined && s.id !== open);
  const at = (s: (typeof candidates)[number]): number => Date.parse(s.lastEventAt ?? s.startedAt ?? '') || 0;
  candidates.sort((a, b) => at(b) - at(a));
  const latest = candidates[0];
  if (latest === undefined) throw new ConfigError(`No other session of ${cwd} in ${dir}; /sessions lists them, /resume ID continues one.`);
  return latest.id;
}

function isTty(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

function columnsOf(stream: Writable): number {
  const columns = (stream as { columns?: number }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : 80;
}
