// The `webSearch` setting (docs/config.md, "Precedence"; docs/web-tools.md, "Configuration"): taken
// whole from the highest layer that sets it — environment (PTC_WEB_SEARCH_BACKEND, with
// PTC_WEB_SEARCH_URL and PTC_WEB_SEARCH_API_KEY_ENV beside it) > project file > user file — so a
// backend never gets the URL or key variable of another layer's backend.

import { ConfigError } from '../errors.js';
import type { WebSearchConfig } from '../builtin-tools/web-search/backend.js';
import { webSearchSchema } from './config-schema.js';
import type { LoadedConfigFile } from './load-config-file.js';
import { WEB_SEARCH_ENV } from './setting-env.js';

type Env = Readonly<Record<string, string | undefined>>;

export { WEB_SEARCH_ENV };

export interface WebSearchSetting {
  readonly value: WebSearchConfig;
  readonly layer: 'env' | 'project' | 'user';
  /** `env PTC_WEB_SEARCH_BACKEND`, `/home/u/.config/ptc/config.yaml:7`. */
  readonly origin: string;
}

export function webSearchSetting(sources: { readonly env: Env; readonly project?: LoadedConfigFile; readonly user?: LoadedConfigFile }): WebSearchSetting | undefined {
  const fromEnv = envWebSearch(sources.env);
  if (fromEnv !== undefined) return fromEnv;
  for (const [layer, file] of [
    ['project', sources.project],
    ['user', sources.user],
  ] as const) {
    const value = file?.values.webSearch;
    if (value !== undefined) {
      const origin = file!.origin(['webSearch']);
      return { value: { ...value, origin }, layer, origin };
    }
  }
  return undefined;
}

function envWebSearch(env: Env): WebSearchSetting | undefined {
  const read = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  const backend = read(WEB_SEARCH_ENV.backend);
  const url = read(WEB_SEARCH_ENV.url);
  const apiKeyEnv = read(WEB_SEARCH_ENV.apiKeyEnv);
  if (backend === undefined) {
    const stray = url !== undefined ? WEB_SEARCH_ENV.url : apiKeyEnv !== undefined ? WEB_SEARCH_ENV.apiKeyEnv : undefined;
    if (stray !== undefined) {
      throw new ConfigError(`${stray} is set but ${WEB_SEARCH_ENV.backend} is not: set ${WEB_SEARCH_ENV.backend} (searxng or brave) as well, or unset ${stray}.`);
    }
    return undefined;
  }
  const parsed = webSearchSchema.safeParse({ backend, ...(url !== undefined ? { url } : {}), ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = WEB_SEARCH_ENV[String(issue.path[0]) as keyof typeof WEB_SEARCH_ENV] ?? WEB_SEARCH_ENV.backend;
    throw new ConfigError(`${name}=${JSON.stringify(env[name]?.trim() ?? '')}: ${issue.message}, or unset it.`);
  }
  const origin = `env ${WEB_SEARCH_ENV.backend}`;
  return { value: { ...parsed.data, origin }, layer: 'env', origin };
}
