// The person answers in the browser (docs/ui.md): an approval request or a proposed plan waits, by
// call id, until the page answers or the turn stops. The hub (session-hub.ts) hands these to
// installApprovals and installPlanMode; the cards come from the logged events.

import type { ApprovalAnswer, Approver } from '../approvals/approvals.js';
import type { PlanReview } from '../plan-mode/plan-mode.js';

/** An approver whose answers arrive through `pending` (call id -> resolve); the turn's stop rejects the wait. */
export function browserApprover(pending: Map<string, (answer: ApprovalAnswer) => void>, turn: AbortSignal): Approver {
  return (request, signal) =>
    new Promise<ApprovalAnswer>((resolve, reject) => {
      const settle = () => {
        pending.delete(request.id);
        signal.removeEventListener('abort', onAbort);
        turn.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        settle();
        reject(new Error('the turn was stopped'));
      };
      if (signal.aborted || turn.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // Until the pipeline passes each call's signal to hooks, the stop button ends the wait through the turn's.
      turn.addEventListener('abort', onAbort, { once: true });
      pending.set(request.id, (answer) => {
        settle();
        resolve(answer);
      });
    });
}

/** A plan reviewer whose reviews arrive through `plans` (plan_propose call id -> resolve). */
export function browserPlanReviewer(plans: Map<string, (review: PlanReview) => void>, turn: AbortSignal) {
  return (proposal: { readonly id: string }, signal: AbortSignal): Promise<PlanReview> =>
    new Promise<PlanReview>((resolve, reject) => {
      const onAbort = () => {
        plans.delete(proposal.id);
        reject(new Error('the turn was stopped'));
      };
      if (signal.aborted || turn.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      turn.addEventListener('abort', onAbort, { once: true });
      plans.set(proposal.id, (review) => {
        plans.delete(proposal.id);
        signal.removeEventListener('abort', onAbort);
        turn.removeEventListener('abort', onAbort);
        resolve(review);
      });
    });
}
