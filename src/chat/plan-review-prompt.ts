// The chat's plan review (docs/plan-mode.md): prints a proposed plan (its markdown and numbered
// steps) on stderr and asks the person to approve it or send it back with a comment.

import type { Interface } from 'node:readline';
import type { Writable } from 'node:stream';
import type { PlanProposal, PlanReview } from '../plan-mode/plan-mode.js';
import { visible, visibleKeepingLines } from '../terminal-text.js';
import { questionUntil } from './readline-question.js';

/** The plan as the person reads it: a header, the markdown, the numbered steps. */
export function planReviewText(proposal: Pick<PlanProposal, 'markdown' | 'steps'>): string[] {
  return [
    '── proposed plan ──',
    ...visibleKeepingLines(proposal.markdown.trimEnd()).split('\n'),
    'Steps:',
    ...proposal.steps.map((step, i) => `  ${i + 1}. ${visible(step)}`),
  ];
}

/** Asks until a usable answer: `y` approves; `n` (or any other text) sends the plan back with a comment. */
export async function reviewPlanInTerminal(rl: Interface, out: Writable, proposal: PlanProposal, signal: AbortSignal): Promise<PlanReview> {
  out.write(`${planReviewText(proposal).join('\n')}\n`);
  const answer = await questionUntil(rl, '[y] approve and start  [n] send back (or type your comment): ', signal);
  if (answer === undefined) return { decision: 'send-back', comment: 'no answer (the input ended or the step was stopped)' };
  const typed = answer.trim();
  const choice = typed.toLowerCase();
  if (choice === 'y' || choice === 'yes') return { decision: 'approve' };
  if (choice === 'n' || choice === 'no' || choice === '') {
    const comment = await questionUntil(rl, 'comment for the model: ', signal);
    return { decision: 'send-back', comment: comment?.trim() ?? '' };
  }
  return { decision: 'send-back', comment: typed };
}
