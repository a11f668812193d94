// Reading one config file (docs/config.md): YAML with the position of every value kept, so each
// problem is CONFIG naming `file:line` and the fix, an unknown key gets "did you mean", and each
// setting and rule can say where it came from (`ptc config`, a deny's reason).

import fs from 'node:fs';
import type { Document } from 'yaml';
import { yamlModule } from '../yaml-module.js';
import type { z } from 'zod';
import { parseRuleText, type ApprovalRule, type RuleEffect } from '../approvals/approval-rules.js';
import { readConfigText } from '../config-file.js';
import { didYouMean } from '../did-you-mean.js';
import { ConfigError } from '../errors.js';
import { MAX_CONFIG_FILE_BYTES } from './limits.js';
import { CONFIG_KEYS, configSchema, PERMISSION_KEYS, WEB_SEARCH_KEYS, type ConfigValues } from './config-schema.js';

export type KeyPath = readonly (string | number)[];

export interface LoadedConfigFile {
  readonly file: string;
  readonly values: ConfigValues;
  /** The rules of `permissions`, each with its `file:line`. */
  readonly rules: readonly ApprovalRule[];
  /** `file:line` of the value at `keyPath` (`file` alone when it has no position). */
  origin(keyPath: KeyPath): string;
}

/** Names a user might write for the key itself: refused with the reason (docs/config.md, "The API key"). */
const KEY_NAMES = new Set(['apikey', 'api_key', 'api-key', 'key', 'token', 'apitoken']);

/** Reads `file`; undefined when it does not exist. */
export function readConfigFile(file: string): LoadedConfigFile | undefined {
  if (!fs.existsSync(file)) return undefined;
  const { absolute, text } = readConfigText(file, 'config file', MAX_CONFIG_FILE_BYTES, 'a config file holds settings and rules only');
  return parseConfigText(text, absolute);
}

/** Parses and checks the text of config file `file`. */
export function parseConfigText(text: string, file: string): LoadedConfigFile {
  const lines = new (yamlModule().LineCounter)();
  const doc = yamlModule().parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number | undefined) => (offset === undefined ? file : `${file}:${lines.linePos(offset).line}`);
  const fail = (offset: number | undefined, problem: string): never => {
    throw new ConfigError(`Config file ${at(offset)}: ${problem}.`);
  };
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    fail(firstError.pos[0], `not valid YAML (${firstError.message.split('\n')[0]!.replace(/\.$/, '')}); fix the YAML there (a key is \`name: value\`, a list item \`- value\`)`);
  }
  if (doc.contents !== null && !yamlModule().isMap(doc.contents)) fail(doc.contents.range?.[0], 'the file must be a map of keys (`model: deepseek-chat`), not a list or a single value');
  checkKeys(doc, [], CONFIG_KEYS, fail);
  const permissions = doc.getIn(['permissions'], true);
  if (yamlModule().isMap(permissions)) checkKeys(doc, ['permissions'], PERMISSION_KEYS, fail);
  if (yamlModule().isMap(doc.getIn(['webSearch'], true))) checkKeys(doc, ['webSearch'], WEB_SEARCH_KEYS, fail);

  const offsetOf = (keyPath: KeyPath): number | undefined => {
    const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
    return node?.range?.[0];
  };
  const parsed = configSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(nearestOffset(issue, offsetOf), `${issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''}${fixOf(issue)}`);
  }
  const values = parsed.success ? parsed.data : {};
  const rules: ApprovalRule[] = [];
  for (const effect of ['allow', 'deny'] as const satisfies readonly RuleEffect[]) {
    (values.permissions?.[effect] ?? []).forEach((entry, index) => {
      const texts = typeof entry === 'string' ? [entry] : Object.entries(entry).flatMap(([tool, p]) => (Array.isArray(p) ? p : [p]).map((one) => `${tool}: ${one}`));
      for (const ruleSource of texts) {
        const rule = parseRuleText(ruleSource);
        const offset = offsetOf(['permissions', effect, index]);
        if (typeof rule === 'string') fail(offset, `permissions.${effect}: ${rule}`);
        else rules.push({ effect, ...rule, origin: at(offset) });
      }
    });
  }
  return { file, values, rules, origin: (keyPath) => at(offsetOf(keyPath)) };
}

function checkKeys(doc: Document, mapPath: KeyPath, known: readonly string[], fail: (offset: number | undefined, problem: string) => never): void {
  const map = mapPath.length === 0 ? doc.contents : doc.getIn(mapPath, true);
  if (!yamlModule().isMap(map)) return;
  const where = mapPath.length === 0 ? '' : ` under ${mapPath.join('.')}`;
  for (const pair of map.items) {
    const keyNode = pair.key;
    const key = yamlModule().isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    if (known.includes(key)) continue;
    const offset = (keyNode as { range?: [number, number, number] } | null)?.range?.[0];
    // webSearch takes a key too: the same refusal there (docs/web-tools.md, "Configuration").
    if ((mapPath.length === 0 || mapPath[0] === 'webSearch') && KEY_NAMES.has(key.toLowerCase())) {
      fail(
        offset,
        `\`${key}\`: an API key is not kept in a config file (files are copied, synced and shared, and under --sandbox off a program can read them); ` +
          'put the key in an environment variable and name that variable with `apiKeyEnv: MY_KEY_VAR`',
      );
    }
    const hint = didYouMean(key, known);
    fail(offset, `unknown key \`${key}\`${where}.${hint === '' ? '' : hint} The keys${where} are ${known.join(', ')}`);
  }
}

/** The offset of the deepest part of the issue's path that has a node. */
function nearestOffset(issue: z.core.$ZodIssue, offsetOf: (keyPath: KeyPath) => number | undefined): number | undefined {
  const keyPath = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  for (let n = keyPath.length; n >= 0; n--) {
    const offset = offsetOf(keyPath.slice(0, n));
    if (offset !== undefined) return offset;
  }
  return undefined;
}

function fixOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}; remove or rename ${issue.keys.length > 1 ? 'them' : 'it'}`;
  return issue.message;
}
