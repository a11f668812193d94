// The approval question of `ptc chat` on the terminal: the call, the program it came from, why it
// asks beyond the policy, and for a write or edit the unified diff of what it would do. Everything
// but the frame is the model's text, shown with its control characters visible, so a carriage
// return or an escape sequence cannot redraw the question (docs/security.md, "Approval edges").

import path from 'node:path';
import type { Interface } from 'node:readline';
import type { Writable } from 'node:stream';

import type { ApprovalAnswer, ApprovalRequest } from '../approvals/approvals.js';
import { MAX_APPROVAL_ARGS_CHARS } from './limits.js';
import { preview, visible } from '../terminal-text.js';
import { renderUnifiedDiff } from './diff-render.js';
import { proposedChange } from './proposed-change.js';
import { questionUntil } from './readline-question.js';

export interface ApprovalPromptOptions {
  /** The workspace: relative paths of the call are read from here for the diff. */
  readonly cwd: string;
  /** Colour the diff. */
  readonly color: boolean;
}

/** The lines shown before the question. */
export async function approvalText(request: ApprovalRequest, options: ApprovalPromptOptions): Promise<string[]> {
  const lines = [`\nApproval needed: ${visible(request.tool)} ${visible(preview(JSON.stringify(request.args), MAX_APPROVAL_ARGS_CHARS))}`];
  if (request.parent !== undefined) {
    const label = request.parent.description ? ` ("${visible(request.parent.description)}")` : '';
    lines.push(`  from the program of ${visible(request.parent.tool)} ${visible(request.parent.id)}${label}:`);
    if (request.parent.program !== undefined) lines.push(...request.parent.program.split('\n').map((l) => `  | ${visible(l)}`));
  }
  // Asked beyond the policy (a protected path, a program no sandbox holds): say why, show the program.
  if (request.why !== undefined) lines.push(`  why: ${visible(request.why)}`);
  const code = typeof request.args === 'object' && request.args !== null && !Array.isArray(request.args) ? request.args['code'] : undefined;
  if (request.parent === undefined && typeof code === 'string') lines.push(...code.split('\n').map((l) => `  | ${visible(l)}`));
  const change = await proposedChange(options.cwd, request.tool, request.args).catch(() => undefined);
  if (change?.kind === 'change') {
    lines.push('  the change it would make:', ...renderUnifiedDiff(displayPath(options.cwd, change.path), change.oldText, change.newText, { color: options.color }).map((l) => `  ${l}`));
  } else if (change?.kind === 'note') {
    lines.push(`  (no diff for ${visible(change.path)}: ${change.note})`);
  }
  return lines;
}

/**
 * Asks on the terminal: y = this call, a = this tool for the session, s = save the rule the request
 * offers (request.alwaysAllow: in force at once and in later sessions, docs/config.md), n = deny
 * (then a reason).
 */
export async function askInTerminal(rl: Interface, out: Writable, request: ApprovalRequest, signal: AbortSignal, options: ApprovalPromptOptions): Promise<ApprovalAnswer> {
  const lines = await approvalText(request, options);
  const save = request.alwaysAllow;
  if (save !== undefined) lines.push(`  [s] saves the rule "${visible(save.rule)}"${save.file !== undefined ? ` to ${save.file}` : ' for this process'}`);
  out.write(`${lines.join('\n')}\n`);
  const question = `[y] allow once  [a] allow this tool for the session  ${save !== undefined ? '[s] always allow (saved)  ' : ''}[n] deny: `;
  for (;;) {
    const answer = await questionUntil(rl, question, signal);
    if (answer === undefined) return { decision: 'deny', reason: 'no answer (the input ended)' };
    const choice = answer.trim().toLowerCase();
    if (choice === 'y' || choice === 'yes') return { decision: 'allow' };
    if (choice === 'a' || choice === 'always') return { decision: 'allow-tool' };
    if (save !== undefined && (choice === 's' || choice === 'save')) return { decision: 'allow-always' };
    if (choice === 'n' || choice === 'no') {
      const reason = await questionUntil(rl, 'reason for the model (optional): ', signal);
      return { decision: 'deny', ...(reason !== undefined && reason.trim() !== '' ? { reason: reason.trim() } : {}) };
    }
  }
}

/** A path relative to the workspace when inside it, else as given. */
export function displayPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, path.resolve(cwd, file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
