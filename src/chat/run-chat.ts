// `ptc chat` (and `ptc` alone on a terminal): a conversation in one session (docs/chat.md). Each
// message is a turn of the agent loop; the model's text goes to stdout (rendered markdown on a
// terminal), progress, diffs, the status line and approval questions to stderr. A line starting
// with `/` is a slash command and never reaches the model. Ctrl-C during a turn stops it; a second
// Ctrl-C (or one at the prompt) exits with 130. Later turns continue the same log
// (docs/sessions.md); approvals default to `writes` (docs/approvals.md).

import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

import type { GoalRunResult } from '../agent/goal.js';
import type { AgentRunResult } from '../agent/loop.js';
import { loopOf } from '../agent/loop-service.js';
import type { ApprovalPolicy } from '../approvals/approvals.js';
import { planModeOf, type PlanModeBy } from '../plan-mode/plan-mode.js';
import { checkWorkspace, harnessOptionsOf, type PolicyOptions } from '../command-line/harness-options.js';
import { ConfigError } from '../errors.js';
import { createHarness, type Harness } from '../harness.js';
import { describeReload } from '../presets/plugin-reload.js';
import type { ModelClient } from '../llm/llm-service.js';
import { KNOWN_MODELS } from '../llm/model-catalog.js';
import { MAX_CHAT_SESSIONS_LISTED } from '../limits.js';
import { formatSessionList, resolveSessionDir, type SessionEvent, type SessionWriter } from '../session/index.js';
import type { SessionStore } from '../session/session-store.js';
import { ruleText } from '../approvals/approval-rules.js';
import { sgr } from '../terminal-text.js';
import { listPresetsWithTrust } from '../trust/trusted-preset.js';
import { createAnswerPrinter } from './answer-printer.js';
import { completeLine } from './completer.js';
import { question } from './readline-question.js';
import { SessionChanges } from './session-changes.js';
import { parseLine, type ChatControl } from './slash-commands.js';
import { statusLineText } from './status-line.js';
import { UsageTally } from './usage-tally.js';
import { createSpillStore, createTempSpillStore } from '../tools/spill.js';
import { attachChat } from './chat-attach.js';
import { lastRequestMeterOf, latestOtherSession, modelIdOf } from './chat-sessions.js';
import { runChatTurn } from './chat-turn.js';

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
  const dir = resolveSessionDir({ ...(options.sessionDir !== undefined ? { sessionDir: options.sessionDir } : {}), env: options.env });
  // The model client, the session store and the loop are the harness's services (docs/architecture.md,
  // "Services"); the store of the first harness keeps the conversation's sessions across /preset.
  let harness: Harness = await createHarness(harnessOptionsOf({ ...options, cwd }));
  const modelOf = (spec: string | undefined): Promise<ModelClient> =>
    harness.ctx.llm.open({
      ...(spec !== undefined ? { model: spec } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      ...(options.apiKeyEnv !== undefined ? { apiKeyVar: options.apiKeyEnv } : {}),
      env: options.env,
    });
  let model: ModelClient;
  let store: SessionStore;
  let session: OpenSession | undefined;
  /** Set by `/goal`: the loop runs it as the next turn. */
  let pendingGoal: string | undefined;
  try {
    model = await modelOf(options.model);
    store = await harness.ctx.sessions.open(dir);
    if (options.resume !== undefined || options.continueLatest === true) {
      const continued = store.continue(options.resume ?? store.latest(cwd));
      session = { writer: continued.writer, history: continued.events };
    }
  } catch (error) {
    await harness.dispose();
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

  const attach = (h: Harness): (() => Promise<void>) =>
    attachChat(h, {
      rl,
      errorOutput: options.errorOutput,
      err,
      cwd,
      color,
      policy,
      history: session?.history,
      planning,
      onPlanMode: (next) => void (planning = next),
      changes,
      pendingDiffs,
    });
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
    switchModel: async (spec) => {
      model = await modelOf(spec);
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
      const mine = store
        .list()
        .filter((s) => s.cwd === cwd && s.parentSessionId === undefined)
        .slice(0, MAX_CHAT_SESSIONS_LISTED);
      if (mine.length === 0) return [`No sessions of ${cwd} in ${store.location} yet.`];
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
        spill: spillOf(store, open.writer.sessionId),
      });
      open.history = store.read(open.writer.sessionId).events;
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
      const target = idOrPrefix ?? latestOtherSession(store, cwd, open?.writer.sessionId);
      if (open !== undefined && store.read(target).sessionId === open.writer.sessionId) {
        throw new ConfigError(`Session ${open.writer.sessionId} is the one open; /sessions lists the others.`);
      }
      const continued = store.continue(target);
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
      if (session === undefined) session = { writer: store.start({ lock: true }) };
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
        ({ result, goalResult } = await runChatTurn({
          options: {
            scope: harness.ctx,
            cwd,
            preset: harness.preset.name,
            model: turnModel,
            sink: open.writer,
            sessionId: open.writer.sessionId,
            sessionDir: dir,
            sessions: store,
            signal: turn.signal,
            ...(open.history !== undefined ? { history: open.history } : {}),
            ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
            ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
            ...(options.compactThreshold !== undefined ? { compactThreshold: options.compactThreshold } : {}),
          },
          loop: loopOf(harness.ctx),
          task: parsed.kind === 'message' ? parsed.text : '',
          ...(goal !== undefined ? { goal } : {}),
          printer,
          err,
          printDiffs,
        }));
      } finally {
        turn = undefined;
        printer.end();
        printDiffs();
      }
      if (result.reason === 'max-steps') err(`(stopped after step ${result.steps} without a final answer; raise --max-steps)\n`);
      else if (result.reason === 'aborted') err('(step stopped)\n');
      else if (result.reason === 'error') err(`ptc: ${result.error ?? 'the model request failed'}\n`);
      // The next turn's history is the log as written: what `sessions show --request` would rebuild.
      open.history = store.read(open.writer.sessionId).events;
      tally.add(turnModel.label, modelIdOf(turnModel.label), goalResult?.usage ?? result.usage);
      if (goalResult !== undefined && goalResult.outcome === 'aborted') err('(goal stopped; /goal again starts a new one, ptc run --continue goes on with this one)\n');
      meter = lastRequestMeterOf(open.history) ?? meter;
      const total = tally.total();
      const status = statusLineText({
        preset: harness.preset.name,
        modelLabel: model.label,
        modelId: modelIdOf(model.label),
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

function isTty(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

function columnsOf(stream: Writable): number {
  const columns = (stream as { columns?: number }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : 80;
}

/** Where /compact spills results that were never spilled: the store's place for the session, else a temp directory. */
function spillOf(store: SessionStore, sessionId: string) {
  const dir = store.spillDir?.(sessionId);
  return dir !== undefined ? createSpillStore({ dir }) : createTempSpillStore().store;
}
