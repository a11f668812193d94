// Plan mode over ACP (docs/acp.md, docs/plan-mode.md): the two session modes a session advertises
// (`default` and `plan`), and the review of a proposed plan as a session/request_permission.

import * as acp from '@agentclientprotocol/sdk';
import type { PlanProposal, PlanReview } from '../plan-mode/plan-mode.js';
import { text } from './tool-call-reporter.js';

export const DEFAULT_MODE_ID = 'default';
export const PLAN_MODE_ID = 'plan';
const MODE_IDS: readonly string[] = [DEFAULT_MODE_ID, PLAN_MODE_ID];

/** The `modes` of a session/new or session/load answer. */
export function sessionModes(planning: boolean): acp.SessionModeState {
  return {
    currentModeId: planning ? PLAN_MODE_ID : DEFAULT_MODE_ID,
    availableModes: [
      { id: DEFAULT_MODE_ID, name: 'Default', description: 'The agent reads and changes the workspace with the preset’s tools.' },
      { id: PLAN_MODE_ID, name: 'Plan', description: 'No writes: the agent investigates and ends with a plan for you to approve.' },
    ],
  };
}

/** Whether a session/set_mode `modeId` turns plan mode on; invalidParams naming the known ids otherwise. */
export function planningOfMode(modeId: string): boolean {
  if (!MODE_IDS.includes(modeId)) {
    throw acp.RequestError.invalidParams({ modeId, code: 'CONFIG' }, `Unknown session mode ${JSON.stringify(modeId)}; use one of ${MODE_IDS.join(', ')}.`);
  }
  return modeId === PLAN_MODE_ID;
}

/**
 * Asks the editor about a plan: approve, or send it back. A comment travels in the answer's
 * `_meta.comment` when the editor gives one (an extension, docs/acp.md); without one the model is
 * told to wait for the user's next message. A cancelled ask is a send-back.
 */
export async function askEditorAboutPlan(client: acp.AgentContext, sessionId: string, proposal: PlanProposal, signal: AbortSignal): Promise<PlanReview> {
  const steps = proposal.steps.map((step, i) => `${i + 1}. ${step}`).join('\n');
  const response = await client.request(
    acp.methods.client.session.requestPermission,
    {
      sessionId,
      toolCall: {
        toolCallId: proposal.id,
        title: 'Approve the plan and start the work?',
        kind: 'switch_mode',
        rawInput: { markdown: proposal.markdown, steps: [...proposal.steps] },
        content: [text(`${proposal.markdown}\n\n${steps}`)],
      },
      options: [
        { optionId: 'approve', name: 'Approve and start', kind: 'allow_once' },
        { optionId: 'send-back', name: 'Send back', kind: 'reject_once' },
      ],
    },
    { cancellationSignal: signal, stopWaitingOnCancel: true },
  );
  const outcome = response.outcome;
  if (outcome.outcome === 'selected' && outcome.optionId === 'approve') return { decision: 'approve' };
  const comment = response._meta?.['comment'];
  if (typeof comment === 'string' && comment.trim() !== '') return { decision: 'send-back', comment };
  return {
    decision: 'send-back',
    comment:
      outcome.outcome === 'cancelled'
        ? 'the editor cancelled the review; end your turn and wait for the user'
        : 'no comment came with it; end your turn and wait for the user’s next message, which says what to change',
  };
}
