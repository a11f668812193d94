// The sessions `ptc ui` runs and shows (docs/ui.md, "Cards are events"). A turn is the library's
// agent loop with a session writer whose every appended event is also handed to the browsers
// watching that session; a browser that connects later, or a past session, gets the same events
// read back (from memory while a turn runs, else from the JSONL file). The browser renders both
// through one reducer. Approvals are the library's (installApprovals): the approver waits for the
// browser's answer.

import path from 'node:path';

import { loopOf } from '../agent/loop-service.js';
export type { PresetChoice } from './preset-choices.js';
import { allowedToolsOf, installApprovals, type ApprovalAnswer, type ApprovalPolicy } from '../approvals/approvals.js';
import { ConfigError, HarnessError } from '../errors.js';
import { installPlanMode, planModeOf, type PlanReview } from '../plan-mode/plan-mode.js';
import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { AGENT_ROWS } from '../agent/agent-rows.js';
import { describeReload, type ReloadReport } from '../presets/plugin-reload.js';
import { createPluginVersions, type PluginVersions } from '../presets/plugin-versions.js';
import { followLog, type FollowedLog } from './log-follower.js';
import { createSpillStore } from '../tools/spill.js';
import { resolveModel } from '../llm/index.js';
import type { ModelClient, ModelSettings } from '../llm/llm-service.js';
import type { SessionStore } from '../session/session-store.js';
import { browserApprover, browserPlanReviewer } from './browser-answers.js';
import { presetChoices, type PresetChoice } from './preset-choices.js';
import {
  continueSession,
  ensureSessionDir,
  findSession,
  listSessions,
  readSession,
  spillDirPath,
  summarizeSession,
  SESSION_FILE_EXTENSION,
  type SessionEvent,
  type SessionEventInput,
  type SessionSummary,
  type SessionWriter,
} from '../session/index.js';

export interface UiRunSettings {
  /** Harness options of every turn (workspace and policy flags); the preset is chosen per turn. */
  readonly harness: Omit<HarnessOptions, 'preset'> & { readonly cwd: string };
  /** The preset selected when the page opens (`--preset`, default ptc). */
  readonly defaultPreset: string;
  /** `--model` (a `provider:id`, or the model id with `baseUrl`). */
  readonly model?: string;
  readonly baseUrl?: string;
  /** The variable holding the key instead of the provider's (a config file's `apiKeyEnv`). */
  readonly apiKeyEnv?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sessionDir: string;
  /** `--approve`; `ptc ui`'s default is `writes`. */
  readonly approve: ApprovalPolicy;
  /** `--plan`: a new session's first turn starts in plan mode unless the page says otherwise. */
  readonly plan?: boolean;
  readonly maxSteps?: number;
  /** The model's context window in tokens and the compaction threshold (docs/compaction.md). */
  readonly contextWindow?: number;
  readonly compactThreshold?: number;
  /** Where reloads of edited plugin files are told (`--watch`, docs/plugin-reload.md); default stderr. */
  readonly onNote?: (line: string) => void;
}

/** What a watching browser receives: session events with their index in the log, and the rest. */
export interface HubListener {
  event(index: number, event: SessionEvent): void;
  /** Model text as it streams. */
  text(delta: string): void;
  /** On subscribing during a turn: what streamed of the current step so far (replaces any draft shown). */
  draft(text: string): void;
  /** Whether a turn is running in this server (approval buttons and the stop button need one). */
  status(active: boolean): void;
}

export interface TurnRequest {
  readonly text: string;
  /** Plan mode for this turn (the page's toggle, docs/plan-mode.md); default: the mode the log ended in, else `--plan`. */
  readonly plan?: boolean;
  readonly preset?: string;
  readonly model?: string;
}

interface ActiveTurn {
  /** Every event of the log: the earlier turns' and this turn's so far. */
  readonly events: SessionEvent[];
  readonly controller: AbortController;
  readonly pending: Map<string, (answer: ApprovalAnswer) => void>;
  /** Proposed plans waiting for the page's review, by plan_propose call id. */
  readonly plans: Map<string, (review: PlanReview) => void>;
  /** What streamed of the current step's text (cleared by its llm/response). */
  draft: string;
  /** Settles once the turn has closed its log and disposed its harness. */
  done: Promise<void>;
}

interface Channel {
  readonly listeners: Set<HubListener>;
  turn?: ActiveTurn;
  /** A turn another process is running on this session's log, followed while someone watches. */
  followed?: FollowedLog;
}

export class SessionHub {
  private readonly settings: UiRunSettings;
  private readonly channels = new Map<string, Channel>();
  private closed = false;
  /** With `--watch`: which version of each plugin file the turns' harnesses run (docs/plugin-reload.md, "ptc ui"). */
  private readonly versions: PluginVersions | undefined;

  constructor(settings: UiRunSettings) {
    this.settings = settings;
    this.versions = settings.harness.watchPlugins === true ? createPluginVersions() : undefined;
    ensureSessionDir(settings.sessionDir);
  }

  /** The presets that resolve in the workspace (shadowed ones and an untrusted workspace's left out), with their descriptions. */
  presets(): PresetChoice[] {
    return presetChoices(this.settings.harness.cwd, this.settings.env, this.settings.harness.trustWorkspace === true);
  }

  /** The model the flags name, as `session/start` will show it; the error when it cannot be used. */
  defaultModel(): { label: string; error?: string } {
    try {
      return { label: this.resolve(undefined).label };
    } catch (error) {
      return { label: this.settings.model ?? '', error: error instanceof Error ? error.message : String(error) };
    }
  }

  sessions(): SessionSummary[] {
    return listSessions(this.settings.sessionDir);
  }

  isActive(sessionId: string): boolean {
    return this.channels.get(sessionId)?.turn !== undefined;
  }

  /** Starts a new session with its first turn; resolves with its id once the log exists. */
  async start(request: TurnRequest): Promise<string> {
    return this.begin(request, (store) => ({ writer: store.start(), history: undefined }));
  }

  /** A later turn of `sessionId` (continueSession: same log, history, continuing steps). */
  async continue(sessionId: string, request: TurnRequest): Promise<string> {
    if (this.isActive(sessionId)) throw new ConfigError(`Session ${sessionId} is running a turn; wait for it to end or stop it.`);
    this.sessionFile(sessionId); // an exact id of the session directory
    return this.begin(request, (store) => {
      const continued = store.continue(sessionId);
      return { writer: continued.writer, history: continued.events };
    });
  }

  /**
   * Compacts a session that no turn is running (the page's Compact button, docs/compaction.md): the
   * lines it logs reach every watcher like a turn's. Returns what was logged.
   */
  async compact(sessionId: string, focus: string | undefined, modelSpec?: string): Promise<SessionEvent[]> {
    if (this.isActive(sessionId)) throw new ConfigError(`Session ${sessionId} is running a turn; compact it when the turn has ended.`);
    const continued = continueSession(this.settings.sessionDir, this.sessionFile(sessionId));
    try {
      const { compactSession } = await import('../agent/compact-session.js');
      await compactSession({
        events: continued.events,
        sink: continued.writer,
        model: this.resolve(modelSpec),
        ...(this.settings.contextWindow !== undefined ? { contextWindow: this.settings.contextWindow } : {}),
        ...(focus !== undefined && focus.trim() !== '' ? { focus } : {}),
        spill: createSpillStore({ dir: spillDirPath(path.resolve(this.settings.sessionDir), sessionId) }),
      });
    } finally {
      continued.writer.close();
    }
    const after = readSession(continued.file).events;
    const added = after.slice(continued.events.length);
    const listeners = this.channels.get(sessionId)?.listeners ?? new Set<HubListener>();
    added.forEach((event, i) => {
      for (const listener of listeners) listener.event(continued.events.length + i, event);
    });
    return added;
  }

  /** Aborts the running turn; false when none runs. */
  stop(sessionId: string): boolean {
    const turn = this.channels.get(sessionId)?.turn;
    if (!turn) return false;
    turn.controller.abort();
    return true;
  }

  /** Reviews a waiting plan (approve or send back); false when no plan of that id waits. */
  review(sessionId: string, callId: string, review: PlanReview): boolean {
    const resolve = this.channels.get(sessionId)?.turn?.plans.get(callId);
    if (!resolve) return false;
    resolve(review);
    return true;
  }

  /** Answers a waiting approval; false when no call of that id waits. */
  answer(sessionId: string, callId: string, answer: ApprovalAnswer): boolean {
    const resolve = this.channels.get(sessionId)?.turn?.pending.get(callId);
    if (!resolve) return false;
    resolve(answer);
    return true;
  }

  /**
   * Sends the events after `afterIndex` (-1: all) to `listener`, then keeps it informed. A session
   * that does not run here is read from its file. Returns the unsubscribe function.
   */
  subscribe(sessionId: string, afterIndex: number, listener: HubListener): () => void {
    const existing = this.channels.get(sessionId);
    const turn = existing?.turn;
    const events = turn?.events ?? existing?.followed?.events ?? this.readOrFollow(sessionId);
    const channel = this.channel(sessionId);
    for (let i = afterIndex + 1; i < events.length; i++) listener.event(i, events[i]!);
    listener.status(turn !== undefined);
    if (turn) listener.draft(turn.draft);
    channel.listeners.add(listener);
    return () => {
      channel.listeners.delete(listener);
      if (channel.listeners.size === 0) {
        channel.followed?.stop();
        channel.followed = undefined;
        if (!channel.turn) this.channels.delete(sessionId);
      }
    };
  }

  /**
   * The log's events. When its latest turn runs in another process of this host (`ptc run`), the
   * channel follows the file and hands each new line to the watchers.
   */
  private readOrFollow(sessionId: string): SessionEvent[] {
    const file = this.sessionFile(sessionId);
    const { events, warnings } = readSession(file);
    if (summarizeSession(sessionId, file, events, warnings).outcome !== 'running') return events;
    const channel = this.channel(sessionId);
    const followed = followLog(file, (index, event) => {
      for (const listener of channel.listeners) listener.event(index, event);
    });
    channel.followed = followed;
    return followed.events;
  }

  /** Stops every running turn and waits for them to close their logs. */
  async close(): Promise<void> {
    this.closed = true;
    const turns = [...this.channels.values()].flatMap((c) => (c.turn ? [c.turn] : []));
    for (const turn of turns) turn.controller.abort();
    await Promise.all(turns.map((t) => t.done));
  }

  /** The log of exactly `sessionId` (the library also takes prefixes; a URL names one session). */
  private sessionFile(sessionId: string): string {
    const file = findSession(this.settings.sessionDir, sessionId);
    if (path.basename(file, SESSION_FILE_EXTENSION) !== sessionId) throw new ConfigError(`No session ${JSON.stringify(sessionId)} in ${this.settings.sessionDir}.`);
    return file;
  }

  /** The model settings of a turn: the page's choice, else `--model`. */
  private modelSettings(model: string | undefined): ModelSettings {
    const wanted = model !== undefined && model.trim() !== '' ? model.trim() : this.settings.model;
    return {
      ...(wanted !== undefined ? { model: wanted } : {}),
      ...(this.settings.baseUrl !== undefined ? { baseUrl: this.settings.baseUrl } : {}),
      ...(this.settings.apiKeyEnv !== undefined ? { apiKeyVar: this.settings.apiKeyEnv } : {}),
      env: this.settings.env,
    };
  }

  /** The default AI SDK client (the page's model label and the Compact button, which run outside a turn's harness). */
  private resolve(model: string | undefined) {
    return resolveModel(this.modelSettings(model));
  }

  /**
   * Every turn's harness. With `--watch`, edited plugin files load their new version; one whose harness
   * does not assemble is reported and the turn runs with the old versions (docs/plugin-reload.md).
   */
  private async openHarness(preset: string): Promise<Harness> {
    const versions = this.versions;
    const options = { rowKinds: AGENT_ROWS, ...this.settings.harness, preset, env: this.settings.env, ...(versions !== undefined ? { pluginVersions: versions } : {}) };
    if (versions === undefined) return createHarness(options);
    const tell = (report: ReloadReport) => {
      const note = this.settings.onNote ?? ((line: string) => void process.stderr.write(`${line}\n`));
      for (const line of describeReload(report)) note(`ptc ui: ${line}`);
    };
    let harness: Harness;
    try {
      harness = await createHarness(options);
    } catch (error) {
      const retry = versions.hasPending();
      tell(versions.settle(false, error));
      if (!retry) throw error;
      harness = await createHarness(options);
    }
    tell(versions.settle(true));
    return harness;
  }

  private channel(sessionId: string): Channel {
    let channel = this.channels.get(sessionId);
    if (!channel) {
      channel = { listeners: new Set() };
      this.channels.set(sessionId, channel);
    }
    return channel;
  }

  private async begin(request: TurnRequest, open: (store: SessionStore) => { writer: SessionWriter; history: readonly SessionEvent[] | undefined }): Promise<string> {
    if (this.closed) throw new ConfigError('ptc ui is shutting down.');
    if (request.text.trim() === '') throw new ConfigError('Write a message first.');
    const preset = request.preset !== undefined && request.preset !== '' ? request.preset : this.settings.defaultPreset;
    // The turn's model client, session store and loop are its harness's services (docs/architecture.md, "Services").
    const harness = await this.openHarness(preset);
    let model: ModelClient;
    let store: SessionStore;
    let writer: SessionWriter;
    let history: readonly SessionEvent[] | undefined;
    try {
      model = await harness.ctx.llm.open(this.modelSettings(request.model));
      store = await harness.ctx.sessions.open(this.settings.sessionDir);
      ({ writer, history } = open(store));
    } catch (error) {
      await harness.dispose();
      throw error;
    }
    const sessionId = writer.sessionId;
    const channel = this.channel(sessionId);
    // This server now writes the log itself (the other process's turn has ended, or continueSession would have refused).
    channel.followed?.stop();
    channel.followed = undefined;
    const controller = new AbortController();
    const pending = new Map<string, (answer: ApprovalAnswer) => void>();
    const plans = new Map<string, (review: PlanReview) => void>();
    const events: SessionEvent[] = [...(history ?? [])];
    const broadcast = (send: (l: HubListener) => void) => {
      for (const listener of channel.listeners) send(listener);
    };

    const sink = {
      append: (input: SessionEventInput): SessionEvent => {
        const written = writer.append(input);
        const index = events.push(written) - 1;
        if (written.type === 'llm/response') turn.draft = '';
        broadcast((l) => l.event(index, written));
        return written;
      },
      flush: () => writer.flush(),
    };
    // The person answers in the browser: the request card comes from the logged tool/approval event.
    const approver = browserApprover(pending, controller.signal);
    // "Allow for the session" answers of earlier turns still hold (each turn installs approvals anew).
    const removeApprovals = installApprovals(harness.ctx, {
      policy: this.settings.approve,
      approver,
      flagHint: '--approve never',
      allowedTools: allowedToolsOf(history ?? []),
    });

    // Plan mode (docs/plan-mode.md): the page reviews a proposal from its logged plan_propose call.
    const planMode = installPlanMode(harness.ctx, {
      active: request.plan ?? (history !== undefined ? planModeOf(history) : this.settings.plan === true),
      by: request.plan !== undefined ? 'user' : 'flag',
      reviewer: browserPlanReviewer(plans, controller.signal),
    });

    const run = async (): Promise<void> => {
      try {
        await loopOf(harness.ctx).run({
          scope: harness.ctx,
          cwd: harness.cwd,
          preset: harness.preset.name,
          model,
          task: request.text,
          sink,
          sessionId,
          sessionDir: this.settings.sessionDir,
          sessions: store,
          signal: controller.signal,
          ...(this.settings.maxSteps !== undefined ? { maxSteps: this.settings.maxSteps } : {}),
          ...(this.settings.contextWindow !== undefined ? { contextWindow: this.settings.contextWindow } : {}),
          ...(this.settings.compactThreshold !== undefined ? { compactThreshold: this.settings.compactThreshold } : {}),
          ...(history !== undefined ? { history } : {}),
          onText: (delta) => {
            turn.draft += delta;
            broadcast((l) => l.text(delta));
          },
        });
      } catch (error) {
        // The loop closed the log with session/end before rethrowing a deployment error; the page shows that line.
        if (!(error instanceof HarnessError)) process.stderr.write(`ptc ui: turn of session ${sessionId} failed: ${String(error)}\n`);
      } finally {
        await removeApprovals();
        await planMode.dispose();
        writer.close();
        await harness.dispose().catch(() => {});
        channel.turn = undefined;
        broadcast((l) => l.status(false));
        if (channel.listeners.size === 0) this.channels.delete(sessionId);
      }
    };
    const turn: ActiveTurn = { events, controller, pending, plans, draft: '', done: Promise.resolve() };
    channel.turn = turn;
    broadcast((l) => l.status(true));
    turn.done = run();
    return sessionId;
  }
}
