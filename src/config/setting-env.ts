// The settings and their environment variables (docs/config.md, "Precedence"), without the schema,
// so a command can tell cheaply whether anything is configured at all.

export const SETTING_KEYS = ['provider', 'model', 'baseUrl', 'apiKeyEnv', 'preset', 'approve', 'maxSteps', 'contextWindow', 'compactThreshold'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** The environment variable of each setting. */
export const ENV_OF: Readonly<Record<SettingKey, string>> = {
  provider: 'PTC_PROVIDER',
  model: 'PTC_MODEL',
  baseUrl: 'PTC_BASE_URL',
  apiKeyEnv: 'PTC_API_KEY_ENV',
  preset: 'PTC_PRESET',
  approve: 'PTC_APPROVE',
  maxSteps: 'PTC_MAX_STEPS',
  contextWindow: 'PTC_CONTEXT_WINDOW',
  compactThreshold: 'PTC_COMPACT_THRESHOLD',
};

/** The variables of the `webSearch` setting, by its field (web-search-setting.ts). */
export const WEB_SEARCH_ENV = {
  backend: 'PTC_WEB_SEARCH_BACKEND',
  url: 'PTC_WEB_SEARCH_URL',
  apiKeyEnv: 'PTC_WEB_SEARCH_API_KEY_ENV',
} as const;
export const WEB_SEARCH_ENV_NAMES: readonly string[] = Object.values(WEB_SEARCH_ENV);
