import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { DEFAULT_MODEL, resolveModel, type ResolveModelOptions } from './model.js';

const ALL_KEYS = { DEEPSEEK_API_KEY: 'ds', OPENAI_API_KEY: 'oa', ANTHROPIC_API_KEY: 'an', PTC_API_KEY: 'ptc' };

function configError(options: ResolveModelOptions): ConfigError {
  try {
    resolveModel(options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveModel', () => {
  it.each([
    { model: undefined, provider: 'deepseek', modelId: 'deepseek-chat', baseUrl: 'https://api.deepseek.com', apiKeyVar: 'DEEPSEEK_API_KEY' },
    { model: 'deepseek:deepseek-reasoner', provider: 'deepseek', modelId: 'deepseek-reasoner', baseUrl: 'https://api.deepseek.com', apiKeyVar: 'DEEPSEEK_API_KEY' },
    { model: 'openai:gpt-4.1', provider: 'openai', modelId: 'gpt-4.1', baseUrl: 'https://api.openai.com/v1', apiKeyVar: 'OPENAI_API_KEY' },
    { model: 'anthropic:claude-sonnet-4-5', provider: 'anthropic', modelId: 'claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1', apiKeyVar: 'ANTHROPIC_API_KEY' },
    { model: ' OpenAI:gpt-4.1-mini ', provider: 'openai', modelId: 'gpt-4.1-mini', baseUrl: 'https://api.openai.com/v1', apiKeyVar: 'OPENAI_API_KEY' },
  ])('$model → $provider:$modelId', ({ model, provider, modelId, baseUrl, apiKeyVar }) => {
    const resolved = resolveModel({ model, env: ALL_KEYS });
    expect(resolved).toMatchObject({ provider, modelId, baseUrl, apiKeyVar, hasApiKey: true, label: `${provider}:${modelId}` });
    expect(resolved.model.modelId).toBe(modelId);
    expect(resolved.model.specificationVersion).toBe('v3');
  });

  it('uses the provider each prefix names', () => {
    expect(resolveModel({ model: 'deepseek:x', env: ALL_KEYS }).model.provider).toMatch(/^deepseek/);
    expect(resolveModel({ model: 'openai:x', env: ALL_KEYS }).model.provider).toBe('openai.chat');
    expect(resolveModel({ model: 'anthropic:x', env: ALL_KEYS }).model.provider).toMatch(/^anthropic/);
    expect(resolveModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'x', env: {} }).model.provider).toBe('openai-compatible.chat');
  });

  it('defaults to deepseek:deepseek-chat', () => {
    expect(DEFAULT_MODEL).toBe('deepseek:deepseek-chat');
    expect(resolveModel({ env: ALL_KEYS }).label).toBe('deepseek:deepseek-chat');
  });

  it.each([
    ['deepseek:deepseek-chat', 'DEEPSEEK_API_KEY', ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']],
    ['openai:gpt-4.1', 'OPENAI_API_KEY', ['DEEPSEEK_API_KEY', 'ANTHROPIC_API_KEY']],
    ['anthropic:claude-x', 'ANTHROPIC_API_KEY', ['DEEPSEEK_API_KEY', 'OPENAI_API_KEY']],
  ])('a missing key for %s names %s and the alternatives', (model, variable, others) => {
    const error = configError({ model, env: {} });
    expect(error.code).toBe('CONFIG');
    expect(error.message.startsWith(`${variable} is not set.`)).toBe(true);
    for (const other of others) expect(error.message).toContain(other);
    expect(error.message).toContain('--base-url http://127.0.0.1:11434/v1 --model <id>');
  });

  it('the default model without DEEPSEEK_API_KEY gives the full hint', () => {
    expect(configError({ env: { OPENAI_API_KEY: 'only-openai' } }).message).toBe(
      'DEEPSEEK_API_KEY is not set. Export it, or pick another provider with --model openai:<id> (OPENAI_API_KEY) / ' +
        'anthropic:<id> (ANTHROPIC_API_KEY), or a local server with --base-url http://127.0.0.1:11434/v1 --model <id> (Ollama).',
    );
  });

  it('treats an empty or blank key as missing', () => {
    expect(configError({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: '  ' } }).message).toMatch(/^OPENAI_API_KEY is not set/);
  });

  it('reads keys from process.env when no env is given', () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'from-process';
    try {
      expect(resolveModel({ model: 'anthropic:claude-x' }).hasApiKey).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('rejects an unknown provider, listing the providers', () => {
    const error = configError({ model: 'mistral:large', env: ALL_KEYS });
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('"mistral"');
    for (const name of ['deepseek:<id>', 'openai:<id>', 'anthropic:<id>', '--base-url']) expect(error.message).toContain(name);
  });

  it('rejects a model without provider prefix or without id', () => {
    expect(configError({ model: 'deepseek-chat', env: ALL_KEYS }).message).toMatch(/has no provider.*deepseek:deepseek-chat/);
    expect(configError({ model: 'deepseek:', env: ALL_KEYS }).message).toMatch(/has no model id/);
  });

  it('asks for --base-url when the model names openai-compatible without one', () => {
    expect(configError({ model: 'openai-compatible:llama3', env: ALL_KEYS }).message).toMatch(/needs --base-url/);
  });
});

describe('resolveModel with --base-url', () => {
  it('implies openai-compatible and takes the model id with or without the prefix', () => {
    for (const model of ['llama3.2', 'openai-compatible:llama3.2']) {
      const resolved = resolveModel({ baseUrl: 'http://127.0.0.1:11434/v1', model, env: {} });
      expect(resolved).toMatchObject({
        provider: 'openai-compatible',
        modelId: 'llama3.2',
        label: 'openai-compatible:llama3.2',
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKeyVar: 'PTC_API_KEY',
      });
    }
  });

  it('keeps colons inside local model ids (Ollama tags)', () => {
    expect(resolveModel({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b', env: {} }).modelId).toBe('qwen2.5-coder:7b');
    expect(resolveModel({ baseUrl: 'http://localhost:11434/v1', model: 'openai-compatible:qwen2.5:7b', env: {} }).modelId).toBe('qwen2.5:7b');
  });

  it('makes PTC_API_KEY optional and ignores the other providers\' keys', () => {
    expect(resolveModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', env: {} }).hasApiKey).toBe(false);
    expect(resolveModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', env: { PTC_API_KEY: 'k' } }).hasApiKey).toBe(true);
    expect(resolveModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'm', env: { DEEPSEEK_API_KEY: 'ds' } }).hasApiKey).toBe(false);
  });

  it('drops a trailing slash from the base URL', () => {
    expect(resolveModel({ baseUrl: 'https://llm.example.com/v1/', model: 'm', env: {} }).baseUrl).toBe('https://llm.example.com/v1');
  });

  it('requires --model', () => {
    for (const model of [undefined, '', 'openai-compatible:']) {
      const error = configError({ baseUrl: 'http://127.0.0.1:11434/v1', model, env: {} });
      expect(error.code).toBe('CONFIG');
      expect(error.message).toMatch(/--base-url needs --model <id>/);
    }
  });

  it.each(['not a url', 'ftp://example.com/v1', 'file:///tmp/x', '127.0.0.1:11434'])('rejects %s', (baseUrl) => {
    const error = configError({ baseUrl, model: 'm', env: {} });
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('--base-url');
  });

  it('refuses a provider base URL override next to --base-url', () => {
    expect(configError({ baseUrl: 'http://127.0.0.1:1/v1', providerBaseUrl: 'http://127.0.0.1:2', model: 'm', env: {} }).code).toBe('CONFIG');
  });
});

describe('resolveModel with providerBaseUrl', () => {
  it.each(['deepseek:deepseek-chat', 'openai:gpt-4.1', 'anthropic:claude-x'])('points %s at the override', (model) => {
    const resolved = resolveModel({ model, providerBaseUrl: 'http://127.0.0.1:9999/proxy/', env: ALL_KEYS });
    expect(resolved.baseUrl).toBe('http://127.0.0.1:9999/proxy');
  });

  it('validates the override', () => {
    expect(configError({ model: 'deepseek:deepseek-chat', providerBaseUrl: 'ws://x', env: ALL_KEYS }).code).toBe('CONFIG');
  });

  it('still needs the provider key', () => {
    expect(configError({ model: 'deepseek:deepseek-chat', providerBaseUrl: 'http://127.0.0.1:9', env: {} }).message).toMatch(
      /^DEEPSEEK_API_KEY is not set/,
    );
  });
});
