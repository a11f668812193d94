// Plan mode (docs/plan-mode.md): a switch on a harness scope under which the model can look but not
// change. While it is on, the tools that may write are hidden from the scope (natively and from the
// PTC SDK, one visibility layer), `bash` and programs run with the workspace read-only (they ask
// src/builtin-tools/read-only-workspace.ts, which reads the `planMode` service), and `plan_propose`
// lets the model end with a plan a person approves or sends back. The switch and every review are
// scope events the agent loop logs; `planModeOf` reads the mode back from a log, so a resumed
// session starts as it stopped.

import type { Context, Disposer } from '../context/context.js';
import { SECTION_ORDER } from '../system-prompt.js';
import type { SessionEvent } from '../session/events.js';
import { createPlanProposeTool, PLAN_PROPOSE_TOOL_NAME } from './plan-propose-tool.js';

export type PlanModeBy = 'flag' | 'user' | 'approval';

export interface PlanModeChange {
  readonly active: boolean;
  readonly by: PlanModeBy;
}

/** One plan the model proposed, as a reviewer sees it. */
export interface PlanProposal {
  /** The plan_propose call id. */
  readonly id: string;
  readonly markdown: string;
  readonly steps: readonly string[];
}

/** A person's answer: approve, or send the plan back with a comment the model reads. */
export type PlanReview = { readonly decision: 'approve' } | { readonly decision: 'send-back'; readonly comment: string };

/** Asks a person about a plan. Must settle; `signal` aborts when the call is aborted. */
export type PlanReviewer = (proposal: PlanProposal, signal: AbortSignal) => Promise<PlanReview>;

/** The scope event of a review (the loop logs it as `plan/review`). */
export interface PlanReviewEvent {
  readonly id: string;
  readonly decision: 'approved' | 'sent-back' | 'unreviewed';
  readonly steps?: readonly string[];
  readonly comment?: string;
}

declare module '../context/context.js' {
  interface Events {
    'plan/mode'(change: PlanModeChange): void;
    'plan/review'(event: PlanReviewEvent): void;
  }
  interface Services {
    planMode: PlanModeService;
  }
}

/**
 * Tools that stay visible in plan mode although they are not concurrency-safe: `bash` (it runs with
 * the workspace read-only, or refuses), `todo` (it writes no file) and `plan_propose` itself.
 */
export const PLAN_MODE_KEPT_TOOLS: ReadonlySet<string> = new Set(['bash', 'todo', PLAN_PROPOSE_TOOL_NAME]);

export const PLAN_MODE_SECTION_ID = 'plan-mode';

const PLAN_MODE_SECTION =
  'Plan mode is on: you can read and search the workspace, but not change it. The tools that write are ' +
  'not available, and bash commands and programs run with the workspace mounted read-only (a write fails). ' +
  'Investigate what the task needs, then call plan_propose with the plan as markdown and its steps as a ' +
  'list. The user approves it (plan mode then ends, the steps become your todo list and you start the ' +
  'work) or sends it back with a comment (revise the plan and propose it again).';

/** The switch of one harness, shared by every scope of it. */
export class PlanModeService {
  #active: boolean;
  #by: PlanModeBy = 'flag';
  #reviewer: PlanReviewer | undefined;
  readonly #scope: Context;

  constructor(scope: Context, active: boolean, reviewer: PlanReviewer | undefined, by: PlanModeBy = 'flag') {
    this.#scope = scope;
    this.#active = active;
    this.#by = by;
    this.#reviewer = reviewer;
  }

  get active(): boolean {
    return this.#active;
  }

  /** Who made the last change (`flag` until one is made). */
  get by(): PlanModeBy {
    return this.#by;
  }

  /** Who reviews proposals; undefined where no one can be asked (`ptc run`). */
  get reviewer(): PlanReviewer | undefined {
    return this.#reviewer;
  }

  setReviewer(reviewer: PlanReviewer | undefined): void {
    this.#reviewer = reviewer;
  }

  /** Turns plan mode on or off; a change is a `plan/mode` scope event, no change is nothing. */
  set(active: boolean, by: PlanModeBy): void {
    if (active === this.#active) return;
    this.#active = active;
    this.#by = by;
    this.#scope.emit('plan/mode', Object.freeze({ active, by }));
  }
}

export interface PlanModeOptions {
  /** Start in plan mode (`--plan`, or the mode a resumed log ended in). Default off. */
  readonly active?: boolean;
  /** Who set that mode, logged when a turn starts in a mode its log does not show yet (default `flag`). */
  readonly by?: PlanModeBy;
  readonly reviewer?: PlanReviewer;
}

export interface InstalledPlanMode {
  readonly service: PlanModeService;
  readonly dispose: Disposer;
}

/**
 * Installs plan mode on a harness scope: the `planMode` service, the visibility layer that hides
 * writing tools while it is on, the plan_propose tool and the system-prompt section.
 */
export function installPlanMode(scope: Context, options: PlanModeOptions = {}): InstalledPlanMode {
  const service = new PlanModeService(scope, options.active === true, options.reviewer, options.by);
  const handle = scope.plugin({
    name: 'plan-mode',
    inject: ['tools'],
    apply(ctx) {
      ctx.provide('planMode', service);
      ctx.tools.register(createPlanProposeTool());
      ctx.on('system-prompt/assemble', (assembly) =>
        service.active
          ? { ...assembly, sections: [...assembly.sections, { id: PLAN_MODE_SECTION_ID, order: SECTION_ORDER.toolGuidance + 60, text: PLAN_MODE_SECTION }] }
          : assembly,
      );
    },
  });
  // The layer belongs to the scope itself (a layer covers its owner and the scopes below it).
  const removeLayer = scope.tools.restrict((tool) => visibleIn(service.active, tool.name, (name) => scope.tools.declaresConcurrencySafe(name)));
  return {
    service,
    dispose: async () => {
      await removeLayer();
      await handle.dispose();
    },
  };
}

/** Visibility of a tool: plan_propose only in plan mode; in plan mode only tools that cannot write. */
export function visibleIn(planning: boolean, name: string, concurrencySafe: (name: string) => boolean): boolean {
  if (name === PLAN_PROPOSE_TOOL_NAME) return planning;
  return !planning || PLAN_MODE_KEPT_TOOLS.has(name) || concurrencySafe(name);
}

/** The mode a log ended in: its last `plan/mode` line, else off. */
export function planModeOf(events: readonly SessionEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'plan/mode') return event.active;
  }
  return false;
}

/** The last proposal of a log still waiting for approval in plan mode (for a compaction to carry). */
export function pendingPlanOf(events: readonly SessionEvent[]): { markdown: string; steps: string[] } | undefined {
  if (!planModeOf(events)) return undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'plan/review' && event.decision === 'approved') return undefined;
    if (event.type === 'tool/call' && event.name === PLAN_PROPOSE_TOOL_NAME) {
      const args = event.args as { markdown?: unknown; steps?: unknown } | null;
      if (args !== null && typeof args === 'object' && typeof args.markdown === 'string' && Array.isArray(args.steps)) {
        return { markdown: args.markdown, steps: args.steps.filter((s): s is string => typeof s === 'string') };
      }
    }
  }
  return undefined;
}
