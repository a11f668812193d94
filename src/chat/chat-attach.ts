// What the chat hangs on a harness (docs/chat.md): approvals asked in the terminal, plan mode with its
// reviewer, the todo plan and the diffs of file changes as they happen. Rebuilt with the harness
// (`/preset`) and with the policy (`/approve`).

import type { Interface } from 'node:readline';
import type { Writable } from 'node:stream';
import { allowedToolsOf, installApprovals, type ApprovalPolicy } from '../approvals/approvals.js';
import { todoProgressText } from '../builtin-tools/todo.js';
import type { Harness } from '../harness.js';
import { installPlanMode, type PlanModeBy } from '../plan-mode/plan-mode.js';
import type { SessionEvent } from '../session/events.js';
import { askInTerminal, displayPath } from './approval-prompt.js';
import { renderUnifiedDiff } from './diff-render.js';
import { reviewPlanInTerminal } from './plan-review-prompt.js';
import type { SessionChanges } from './session-changes.js';

export interface ChatAttachment {
  readonly rl: Interface;
  readonly errorOutput: Writable;
  readonly err: (text: string) => void;
  readonly cwd: string;
  readonly color: boolean;
  readonly policy: ApprovalPolicy;
  /** The open session's log: the tools it always allowed stay allowed. */
  readonly history: readonly SessionEvent[] | undefined;
  readonly planning: { readonly active: boolean; readonly by: PlanModeBy };
  readonly onPlanMode: (planning: { active: boolean; by: PlanModeBy }) => void;
  readonly changes: SessionChanges;
  /** Call id -> diff lines waiting to be printed under the call's progress line. */
  readonly pendingDiffs: Map<string, string[]>;
}

/** Installs everything on `h`; the returned function removes it. */
export function attachChat(h: Harness, a: ChatAttachment): () => Promise<void> {
  const removeApprovals = installApprovals(h.ctx, {
    policy: a.policy,
    approver: (request, signal) => askInTerminal(a.rl, a.errorOutput, request, signal, { cwd: a.cwd, color: a.color }),
    flagHint: '/approve never',
    ...(a.history !== undefined ? { allowedTools: allowedToolsOf(a.history) } : {}),
  });
  const plan = installPlanMode(h.ctx, {
    active: a.planning.active,
    by: a.planning.by,
    reviewer: (proposal, signal) => reviewPlanInTerminal(a.rl, a.errorOutput, proposal, signal),
  });
  const offPlanMode = h.ctx.on('plan/mode', (change) => {
    a.onPlanMode({ active: change.active, by: change.by });
    if (change.by === 'approval') a.err('plan approved: plan mode is off, the work starts\n');
  });
  const offTodo = h.ctx.on('tools/result', (event) => {
    const text = todoProgressText(event);
    if (text !== undefined) a.err(`${text}\n`);
  });
  // A change is heard while its call runs; its diff is printed under the call's progress line.
  const offChange = h.ctx.on('tools/file-change', (event) => {
    a.changes.record(event);
    const lines = renderUnifiedDiff(displayPath(a.cwd, event.path), event.oldText, event.newText, { color: a.color });
    a.pendingDiffs.set(event.callId, [...(a.pendingDiffs.get(event.callId) ?? []), ...lines.map((l) => `${event.parentId !== undefined ? '        ' : '    '}${l}`)]);
  });
  return async () => {
    await removeApprovals();
    await offPlanMode();
    await plan.dispose();
    await offTodo();
    await offChange();
  };
}
