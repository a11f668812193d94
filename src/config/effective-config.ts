// The settings a command runs with (docs/config.md, "Precedence"): flag > environment > project
// file > user file > default, each value with where it came from. Lists add up instead: protected
// paths, approval rules and MCP servers of both files are used together (a project server replaces
// a user server of the same name).

import { ConfigError } from '../errors.js';
import type { ApprovalRule } from '../approvals/approval-rules.js';
import type { McpServerConfig } from '../mcp/client/config.js';
import { configSchema, type ConfigValues } from './config-schema.js';
import type { LoadedConfigFile } from './load-config-file.js';
import { webSearchSetting, type WebSearchSetting } from './web-search-setting.js';

type Env = Readonly<Record<string, string | undefined>>;

import { ENV_OF, SETTING_KEYS, type SettingKey } from './setting-env.js';

export { ENV_OF, SETTING_KEYS, type SettingKey };
export type SettingValue<K extends SettingKey> = NonNullable<ConfigValues[K]>;

/** Highest first. */
export type Layer = 'flag' | 'env' | 'project' | 'user' | 'default';

export interface Setting<T> {
  readonly value: T;
  readonly layer: Layer;
  /** `--model`, `env PTC_MODEL`, `/home/u/.config/ptc/config.yaml:3`, `default`. */
  readonly origin: string;
}

export type Settings = { readonly [K in SettingKey]?: Setting<SettingValue<K>> };

export interface ConfigSources {
  readonly user?: LoadedConfigFile;
  /** Only a trusted workspace's file (docs/security.md). */
  readonly project?: LoadedConfigFile;
  readonly env: Env;
  /** Values the command line gave, by setting, with the flag that gave each. */
  readonly flags?: { readonly [K in SettingKey]?: { readonly value: SettingValue<K>; readonly flag: string } };
  /** Defaults of the command. */
  readonly defaults?: { readonly [K in SettingKey]?: SettingValue<K> };
}

export interface EffectiveConfig {
  readonly settings: Settings;
  /** Protected paths of the files (the user's first), with their origins. */
  readonly protect: readonly Setting<string>[];
  /** Rules of both files, user first. */
  readonly rules: readonly ApprovalRule[];
  /** MCP servers of both files by file: the `mcp` rows they make. */
  readonly mcpServers: readonly { readonly file: string; readonly servers: Readonly<Record<string, McpServerConfig>> }[];
  /** The web_search backend, whole from the highest layer that sets it (web-search-setting.ts). */
  readonly webSearch?: WebSearchSetting;
}

export function effectiveConfig(sources: ConfigSources): EffectiveConfig {
  const settings: Record<string, Setting<unknown>> = {};
  for (const key of SETTING_KEYS) {
    const setting = settingOf(key, sources);
    if (setting !== undefined) settings[key] = setting;
  }
  const files = [sources.user, sources.project].filter((f): f is LoadedConfigFile => f !== undefined);
  const protect = files.flatMap((f) => (f.values.protect ?? []).map((value, i) => ({ value, layer: layerOf(f, sources), origin: f.origin(['protect', i]) })));
  const projectServers = sources.project?.values.mcpServers ?? {};
  const mcpServers = files.flatMap((f) => {
    const entries = Object.entries(f.values.mcpServers ?? {}).filter(([name]) => f === sources.project || !Object.hasOwn(projectServers, name));
    return entries.length === 0 ? [] : [{ file: f.file, servers: Object.fromEntries(entries) }];
  });
  const webSearch = webSearchSetting(sources);
  return { settings: settings as Settings, protect, rules: files.flatMap((f) => f.rules), mcpServers, ...(webSearch !== undefined ? { webSearch } : {}) };
}

function layerOf(file: LoadedConfigFile, sources: ConfigSources): Layer {
  return file === sources.project ? 'project' : 'user';
}

function settingOf<K extends SettingKey>(key: K, sources: ConfigSources): Setting<SettingValue<K>> | undefined {
  const flag = sources.flags?.[key];
  if (flag !== undefined) return { value: flag.value, layer: 'flag', origin: flag.flag };
  const fromEnv = envValue(key, sources.env);
  if (fromEnv !== undefined) return { value: fromEnv, layer: 'env', origin: `env ${ENV_OF[key]}` };
  for (const [layer, file] of [
    ['project', sources.project],
    ['user', sources.user],
  ] as const) {
    const value = file?.values[key];
    if (value !== undefined) return { value: value as SettingValue<K>, layer, origin: file!.origin([key]) };
  }
  const fallback = sources.defaults?.[key];
  return fallback === undefined ? undefined : { value: fallback, layer: 'default', origin: 'default' };
}

/** The setting's environment variable, checked as the file's value would be; empty counts as unset. */
function envValue<K extends SettingKey>(key: K, env: Env): SettingValue<K> | undefined {
  const name = ENV_OF[key];
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = key === 'maxSteps' || key === 'contextWindow' || key === 'compactThreshold' ? Number(raw) : raw;
  const parsed = configSchema.shape[key].safeParse(value);
  if (!parsed.success) throw new ConfigError(`${name}=${JSON.stringify(raw)}: ${parsed.error.issues[0]!.message}, or unset it.`);
  return parsed.data as SettingValue<K>;
}
