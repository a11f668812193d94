// The approval rules a harness follows (docs/config.md, "Approval rules"): the rules of the config
// files, plus the ones "always allow" answers add while it runs. One set may serve several harnesses
// (ptc acp's sessions, a subagent's harness), so a rule saved in one applies in the others at once.

import { ruleFor, ruleMatches, ruleText, type ApprovalRule, type RuleCall } from './approval-rules.js';

/** Appends an allow rule to a config file; resolves with where it was written (`file:line`). */
export type RuleSaver = (rule: { readonly tool: string; readonly pattern?: string }) => string;

export interface RememberedRule {
  readonly rule: ApprovalRule;
  /** Why it could not be saved (it still holds while this process runs). */
  readonly error?: string;
}

export class ApprovalRuleSet {
  private readonly list: ApprovalRule[];
  /** A set this one extends (withRules): its rules count too, live, and answers are remembered there. */
  private readonly base: ApprovalRuleSet | undefined;
  private readonly saver: RuleSaver | undefined;
  /** The file "always allow" answers are saved to, for what a front-end shows. */
  readonly saveTo: string | undefined;

  constructor(rules: readonly ApprovalRule[] = [], saver?: RuleSaver, saveTo?: string, base?: ApprovalRuleSet) {
    this.list = [...rules];
    this.saver = saver;
    this.saveTo = base?.saveTo ?? saveTo;
    this.base = base;
  }

  /**
   * This set plus `extra` (a project file's rules for one ACP session): rules this set gains later
   * still count, and "always allow" answers are remembered (and saved) here, for every session.
   */
  withRules(extra: readonly ApprovalRule[]): ApprovalRuleSet {
    return extra.length === 0 ? this : new ApprovalRuleSet(extra, undefined, undefined, this);
  }

  get rules(): readonly ApprovalRule[] {
    return this.base === undefined ? this.list : [...this.base.rules, ...this.list];
  }

  /** The first deny rule covering the call (deny wins over everything). */
  denying(call: RuleCall, workspace: string): ApprovalRule | undefined {
    return this.rules.find((rule) => rule.effect === 'deny' && ruleMatches(rule, call, workspace));
  }

  /** The first allow rule covering the call, unless a deny rule covers it too. */
  allowing(call: RuleCall, workspace: string): ApprovalRule | undefined {
    if (this.denying(call, workspace) !== undefined) return undefined;
    return this.rules.find((rule) => rule.effect === 'allow' && ruleMatches(rule, call, workspace));
  }

  /** An "always allow" answer: the rule for the call (ruleFor), in force now and saved when a file was given. */
  remember(call: RuleCall, workspace: string): RememberedRule {
    if (this.base !== undefined) return this.base.remember(call, workspace);
    const derived = ruleFor(call, workspace);
    const known = this.list.find((r) => r.effect === 'allow' && r.tool === derived.tool && r.pattern === derived.pattern);
    if (known !== undefined) return { rule: known };
    let origin = 'this process (not saved)';
    let error: string | undefined;
    if (this.saver !== undefined) {
      try {
        origin = this.saver(derived);
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
    }
    const rule: ApprovalRule = { effect: 'allow', ...derived, origin };
    this.list.push(rule);
    return { rule, ...(error !== undefined ? { error } : {}) };
  }
}

/** How a block or an answer names a rule: `rule "bash: rm *" (~/.config/ptc/config.yaml:12)`. */
export function describeRule(rule: ApprovalRule): string {
  return `${rule.effect} rule "${ruleText(rule)}" (${rule.origin})`;
}
