// Deny rules on every call (docs/config.md, "Approval rules"): a `tools/pre-execute` listener that
// createHarness installs on the harness scope whenever it has rules, before any front-end installs
// approvals, so a denied call is blocked without asking anyone, under every policy including
// `never` and with no approvals at all (ptc run, ptc exec, ptc mcp serve). Native calls and a
// program's sub-calls pass the same pipeline. The set is also provided as the `approvalRules`
// service, which approvals read for allow rules and "always allow" answers.

import type { Context } from '../context/context.js';
import type { BlockDecision } from '../tools/tool-runtime.js';
import { describeRule, type ApprovalRuleSet } from './approval-rule-set.js';

declare module '../context/context.js' {
  interface Services {
    approvalRules: ApprovalRuleSet;
  }
}

/** Installs `rules` on the harness scope `ctx` of `workspace`. */
export function installApprovalRules(ctx: Context, rules: ApprovalRuleSet, workspace: string): void {
  ctx.provide('approvalRules', rules);
  ctx.on('tools/pre-execute', (call): BlockDecision | undefined => {
    const rule = rules.denying({ tool: call.name, args: call.args }, workspace);
    if (rule === undefined) return undefined;
    const reason = `refused by the ${describeRule(rule)}; change the call, or edit that rule`;
    ctx.emit('tool/approval', {
      stage: 'answer',
      id: call.id,
      tool: call.name,
      ...(call.parent !== undefined ? { parentId: call.parent.id } : {}),
      decision: 'deny',
      by: 'rule',
      reason,
    });
    return { block: reason };
  });
}
