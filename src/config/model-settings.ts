// From the provider, model and baseUrl settings (each from its own layer) to what resolveModel takes
// (docs/config.md, "Model"): `provider: openai` + `model: gpt-4.1` is `openai:gpt-4.1`; a `baseUrl`
// makes the model an OpenAI-compatible server's, unless a higher layer names a keyed provider
// (`--model anthropic:…` over a file's local server).

import { ConfigError } from '../errors.js';
import type { Layer, Settings } from './effective-config.js';

const KEYED = new Set(['deepseek', 'openai', 'anthropic']);
const RANK: Readonly<Record<Layer, number>> = { default: 0, user: 1, project: 2, env: 3, flag: 4 };

export interface ModelChoice {
  /** resolveModel's `model`. */
  readonly model?: string;
  /** resolveModel's `baseUrl`. */
  readonly baseUrl?: string;
  /** resolveModel's `apiKeyVar`. */
  readonly apiKeyEnv?: string;
}

/** The keyed provider a `provider:id` spec names, if any. */
function prefixOf(model: string): string | undefined {
  const colon = model.indexOf(':');
  const name = colon < 0 ? undefined : model.slice(0, colon).trim().toLowerCase();
  return name !== undefined && KEYED.has(name) ? name : undefined;
}

export function modelChoice(settings: Settings): ModelChoice {
  const { provider, model, baseUrl, apiKeyEnv } = settings;
  const key = apiKeyEnv === undefined ? {} : { apiKeyEnv: apiKeyEnv.value };
  // The provider a layer names: `provider`, or a `provider:` prefix of `model`.
  const prefixed = model !== undefined ? prefixOf(model.value) : undefined;
  const keyedRank = Math.max(
    prefixed !== undefined ? RANK[model!.layer] : -1,
    provider !== undefined && KEYED.has(provider.value) ? RANK[provider.layer] : -1,
  );
  if (baseUrl !== undefined && RANK[baseUrl.layer] >= keyedRank) {
    if (model === undefined) {
      throw new ConfigError(`baseUrl (${baseUrl.origin}) needs a model: the id the server knows; set \`model: <id>\` in the config file or pass --model <id>.`);
    }
    return { model: model.value, baseUrl: baseUrl.value, ...key };
  }
  if (provider?.value === 'openai-compatible' && prefixed === undefined) {
    throw new ConfigError(`provider openai-compatible (${provider.origin}) needs baseUrl: the server's URL, e.g. http://127.0.0.1:11434/v1.`);
  }
  if (model === undefined) {
    if (provider === undefined) return key;
    throw new ConfigError(`provider ${provider.value} (${provider.origin}) needs a model; set \`model: <id>\` beside it, e.g. model: deepseek-chat.`);
  }
  if (prefixed !== undefined || provider === undefined) return { model: model.value, ...key };
  return { model: `${provider.value}:${model.value}`, ...key };
}
