// Turns `--model provider:id` / `--base-url` into an AI SDK language model, reading keys from the environment.

import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { ConfigError } from '../errors.js';
import { DEFAULT_MODEL } from './default-model.js';

export type ProviderName = 'deepseek' | 'openai' | 'openai-compatible' | 'anthropic';

/** A language model object (never the gateway's plain string ids). */
export type ResolvedLanguageModel = Exclude<LanguageModel, string>;

export interface ResolvedModel {
  readonly provider: ProviderName;
  readonly modelId: string;
  /** `provider:modelId`, e.g. `deepseek:deepseek-chat`: what logs and `session/start` show. */
  readonly label: string;
  /** The API root requests go to (without a trailing slash). */
  readonly baseUrl: string;
  /** The environment variable the key came from; error messages point users to it. */
  readonly apiKeyVar: string;
  /** False only for `--base-url` without `PTC_API_KEY` (local servers need none). */
  readonly hasApiKey: boolean;
  readonly model: ResolvedLanguageModel;
}

export interface ResolveModelOptions {
  /** `provider:id`, or with `baseUrl` the model id (an `openai-compatible:` prefix is dropped). */
  model?: string;
  /** Any OpenAI-compatible endpoint; implies provider `openai-compatible`. */
  baseUrl?: string;
  /** Overrides the API root of `deepseek`, `openai` or `anthropic` (proxies, tests). */
  providerBaseUrl?: string;
  /** Where keys are read from; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Passed to the provider; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** The environment variable holding the key instead of the provider's own (`apiKeyEnv` of a config file, docs/config.md). */
  apiKeyVar?: string;
}

export { DEFAULT_MODEL };

interface ProviderSpec {
  readonly apiKeyVar: string;
  readonly defaultBaseUrl: string;
  readonly example: string;
}

/** The providers `--model provider:id` accepts (openai-compatible goes through `--base-url`). */
const PROVIDERS = {
  deepseek: { apiKeyVar: 'DEEPSEEK_API_KEY', defaultBaseUrl: 'https://api.deepseek.com', example: 'deepseek:deepseek-chat' },
  openai: { apiKeyVar: 'OPENAI_API_KEY', defaultBaseUrl: 'https://api.openai.com/v1', example: 'openai:gpt-4.1' },
  anthropic: { apiKeyVar: 'ANTHROPIC_API_KEY', defaultBaseUrl: 'https://api.anthropic.com/v1', example: 'anthropic:claude-sonnet-4-5' },
} as const satisfies Record<Exclude<ProviderName, 'openai-compatible'>, ProviderSpec>;

type KeyedProvider = keyof typeof PROVIDERS;

const COMPATIBLE = 'openai-compatible';
const COMPATIBLE_KEY_VAR = 'PTC_API_KEY';
const OLLAMA_HINT = '--base-url http://127.0.0.1:11434/v1 --model <id> (Ollama)';

function isKeyedProvider(name: string): name is KeyedProvider {
  return Object.hasOwn(PROVIDERS, name);
}

function providerList(): string {
  const keyed = Object.entries(PROVIDERS).map(([name, spec]) => `${name}:<id> (${spec.apiKeyVar})`);
  return `${keyed.join(', ')}, or --base-url <url> --model <id> for any OpenAI-compatible server`;
}

function missingKeyMessage(provider: KeyedProvider, keyVar: string): string {
  const alternatives = Object.entries(PROVIDERS)
    .filter(([name]) => name !== provider)
    .map(([name, spec]) => `${name}:<id> (${spec.apiKeyVar})`);
  return (
    `${keyVar} is not set${keyVar === PROVIDERS[provider].apiKeyVar ? '' : ' (apiKeyEnv names it)'}. Export it, or pick another provider with ` +
    `--model ${alternatives.join(' / ')}, or a local server with ${OLLAMA_HINT}.`
  );
}

/** Validates an http(s) URL and drops trailing slashes; `flag` names the option in the error. */
function parseBaseUrl(raw: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${flag} "${raw}" is not a valid URL; expected e.g. http://127.0.0.1:11434/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${flag} "${raw}" must be an http:// or https:// URL.`);
  }
  return url.href.replace(/\/+$/, '');
}

function readKey(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name];
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Resolves the model of a run. Throws `ConfigError` (code CONFIG, exit 2) for an unknown provider,
 * a missing model id, a bad URL, or a missing API key, with a message that names the fix.
 */
export function resolveModel(options: ResolveModelOptions = {}): ResolvedModel {
  const env = options.env ?? process.env;
  const fetchImpl = options.fetch;
  const rawModel = options.model?.trim();

  if (options.baseUrl !== undefined) {
    if (options.providerBaseUrl !== undefined) {
      throw new ConfigError('--base-url already names the endpoint; do not combine it with a provider base URL override.');
    }
    const baseUrl = parseBaseUrl(options.baseUrl, '--base-url');
    // Only our own prefix is dropped: local model ids often contain colons (`qwen2.5:7b`).
    const modelId = rawModel?.startsWith(`${COMPATIBLE}:`) ? rawModel.slice(COMPATIBLE.length + 1).trim() : rawModel;
    if (!modelId) {
      throw new ConfigError(
        `--base-url needs --model <id>: the model name the server knows (e.g. --model llama3.2 for Ollama).`,
      );
    }
    const keyVar = options.apiKeyVar ?? COMPATIBLE_KEY_VAR;
    const apiKey = readKey(env, keyVar);
    const provider = createOpenAICompatible({
      name: COMPATIBLE,
      baseURL: baseUrl,
      apiKey,
      fetch: fetchImpl,
      includeUsage: true,
    });
    return {
      provider: COMPATIBLE,
      modelId,
      label: `${COMPATIBLE}:${modelId}`,
      baseUrl,
      apiKeyVar: keyVar,
      hasApiKey: apiKey !== undefined,
      model: provider.chatModel(modelId),
    };
  }

  const spec = rawModel || DEFAULT_MODEL;
  const colon = spec.indexOf(':');
  if (colon < 0) {
    throw new ConfigError(
      `--model "${spec}" has no provider. Use provider:id, e.g. ${PROVIDERS.deepseek.example}. Providers: ${providerList()}.`,
    );
  }
  const providerName = spec.slice(0, colon).trim().toLowerCase();
  const modelId = spec.slice(colon + 1).trim();
  if (providerName === COMPATIBLE) {
    throw new ConfigError(`--model ${COMPATIBLE}:<id> needs --base-url <url> of the server (e.g. ${OLLAMA_HINT}).`);
  }
  if (!isKeyedProvider(providerName)) {
    throw new ConfigError(`Unknown model provider "${providerName}" in --model "${spec}". Providers: ${providerList()}.`);
  }
  if (!modelId) {
    throw new ConfigError(`--model "${spec}" has no model id; expected e.g. ${PROVIDERS[providerName].example}.`);
  }

  const { defaultBaseUrl } = PROVIDERS[providerName];
  const apiKeyVar = options.apiKeyVar ?? PROVIDERS[providerName].apiKeyVar;
  const apiKey = readKey(env, apiKeyVar);
  if (apiKey === undefined) throw new ConfigError(missingKeyMessage(providerName, apiKeyVar));
  const baseUrl =
    options.providerBaseUrl !== undefined ? parseBaseUrl(options.providerBaseUrl, 'The provider base URL') : defaultBaseUrl;
  const common = { apiKey, baseURL: baseUrl, fetch: fetchImpl };

  let model: ResolvedLanguageModel;
  switch (providerName) {
    case 'deepseek':
      model = createDeepSeek(common).chat(modelId);
      break;
    case 'openai':
      // @ai-sdk/openai is not a dependency; OpenAI's chat-completions API is the format openai-compatible speaks.
      model = createOpenAICompatible({ name: 'openai', includeUsage: true, ...common }).chatModel(modelId);
      break;
    case 'anthropic':
      model = createAnthropic(common).messages(modelId);
      break;
  }
  return {
    provider: providerName,
    modelId,
    label: `${providerName}:${modelId}`,
    baseUrl,
    apiKeyVar,
    hasApiKey: true,
    model,
  };
}
