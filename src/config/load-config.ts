// The config files a command reads (docs/config.md, "Locations"): the user's, and the workspace's
// `.ptc/config.yaml`, which is loaded only when the workspace is trusted. Loading them is trust's
// (src/trust/trusted-config.ts): the project file is workspace configuration that trust reviews, and
// this folder knows nothing of trust (docs/architecture.md, "Layers").

import { ApprovalRuleSet } from '../approvals/approval-rule-set.js';
import type { EffectiveConfig } from './effective-config.js';
import type { LoadedConfigFile } from './load-config-file.js';
import { saveAllowRule } from './save-rule.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigFiles {
  readonly user: { readonly file: string; readonly loaded?: LoadedConfigFile };
  /** Absent when no workspace applies (or its file does not exist). */
  readonly project?: {
    readonly file: string;
    readonly loaded?: LoadedConfigFile;
    /** Why it was not loaded, with the command that fixes it. */
    readonly ignored?: string;
  };
}

export interface LoadConfigOptions {
  readonly env: Env;
  /** The workspace whose `.ptc/config.yaml` applies, if any. */
  readonly workspace?: string;
}

/** The rules of `config`; "always allow" answers are saved to the user file. */
export function ruleSetOf(config: EffectiveConfig, files: ConfigFiles): ApprovalRuleSet {
  const file = files.user.file;
  return new ApprovalRuleSet(config.rules, (rule) => saveAllowRule(file, rule), file);
}
