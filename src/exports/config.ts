// `ptc-harness/config`: the configuration files (user and project), approvals and their saved
// allow/deny rules (docs/config.md, docs/security.md).

export { readConfigFile, type LoadedConfigFile } from '../config/load-config-file.js';
export { ruleSetOf, type ConfigFiles } from '../config/load-config.js';
export { loadConfigFiles } from '../trust/trusted-config.js';
export { effectiveConfig, type EffectiveConfig } from '../config/effective-config.js';
export { saveAllowRule } from '../config/save-rule.js';
export {
  allowedToolsOf,
  installApprovals,
  APPROVAL_POLICIES,
  type ApprovalAnswer,
  type ApprovalEvent,
  type ApprovalOptions,
  type ApprovalPolicy,
  type ApprovalRequest,
  type Approver,
} from '../approvals/approvals.js';
export { ApprovalRuleSet, describeRule, type RuleSaver } from '../approvals/approval-rule-set.js';
export { describeRuleFor, parseRuleText, ruleMatches, type ApprovalRule } from '../approvals/approval-rules.js';
