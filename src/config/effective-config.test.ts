import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { effectiveConfig } from './effective-config.js';
import { parseConfigText } from './load-config-file.js';
import { modelChoice } from './model-settings.js';

const user = (text: string) => parseConfigText(text, '/u/config.yaml');
const project = (text: string) => parseConfigText(text, '/ws/.ptc/config.yaml');

describe('effective config', () => {
  it('flag > env > project > user > default, each value with its origin', () => {
    const config = effectiveConfig({
      user: user('preset: from-user\nmodel: user-model\napprove: all\nmaxSteps: 5\n'),
      project: project('preset: from-project\nmodel: project-model\n'),
      env: { PTC_MODEL: 'env-model', PTC_APPROVE: '' },
      flags: { preset: { value: 'from-flag', flag: '--preset' } },
      defaults: { preset: 'ptc' },
    });
    expect(config.settings.preset).toEqual({ value: 'from-flag', layer: 'flag', origin: '--preset' });
    expect(config.settings.model).toEqual({ value: 'env-model', layer: 'env', origin: 'env PTC_MODEL' });
    // An empty variable counts as unset.
    expect(config.settings.approve).toEqual({ value: 'all', layer: 'user', origin: '/u/config.yaml:3' });
    expect(effectiveConfig({ project: project('preset: p\n'), user: user('preset: u\n'), env: {} }).settings.preset?.origin).toBe('/ws/.ptc/config.yaml:1');
    expect(effectiveConfig({ env: {}, defaults: { preset: 'ptc' } }).settings.preset).toEqual({ value: 'ptc', layer: 'default', origin: 'default' });
  });

  it('an environment value is checked like a file value: CONFIG naming the variable', () => {
    let error: unknown;
    try {
      effectiveConfig({ env: { PTC_APPROVE: 'sometimes' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).message).toMatch(/PTC_APPROVE="sometimes": set it to one of never, writes, all, or unset it/);
    expect(effectiveConfig({ env: { PTC_MAX_STEPS: '7' } }).settings.maxSteps?.value).toBe(7);
  });

  it('lists add up: rules and protected paths of both files; a project MCP server replaces the user one of that name', () => {
    const config = effectiveConfig({
      user: user('protect: [a]\npermissions: { allow: [read], deny: ["bash: rm *"] }\nmcpServers: { mem: { command: u-mem }, docs: { command: u-docs } }\n'),
      project: project('protect: [b]\npermissions: { allow: ["bash: make"] }\nmcpServers: { mem: { command: p-mem } }\n'),
      env: {},
    });
    expect(config.protect.map((p) => p.value)).toEqual(['a', 'b']);
    expect(config.rules.map((r) => `${r.effect} ${r.tool}`)).toEqual(['allow read', 'deny bash', 'allow bash']);
    expect(config.mcpServers).toEqual([
      { file: '/u/config.yaml', servers: { docs: { command: 'u-docs' } } },
      { file: '/ws/.ptc/config.yaml', servers: { mem: { command: 'p-mem' } } },
    ]);
  });
});

describe('model choice', () => {
  const settingsOf = (text: string, env: Record<string, string> = {}, flags = {}) => effectiveConfig({ user: user(text), env, flags }).settings;

  it('provider + model make provider:id; apiKeyEnv passes through', () => {
    expect(modelChoice(settingsOf('provider: openai\nmodel: gpt-4.1\napiKeyEnv: WORK_KEY\n'))).toEqual({ model: 'openai:gpt-4.1', apiKeyEnv: 'WORK_KEY' });
    expect(modelChoice(settingsOf('model: anthropic:claude-sonnet-4-5\n'))).toEqual({ model: 'anthropic:claude-sonnet-4-5' });
    // A flag's bare id takes the file's provider.
    expect(modelChoice(settingsOf('provider: openai\nmodel: gpt-4.1\n', {}, { model: { value: 'gpt-4o', flag: '--model' } }))).toEqual({ model: 'openai:gpt-4o' });
  });

  it('baseUrl makes an OpenAI-compatible model, unless a higher layer names a keyed provider', () => {
    expect(modelChoice(settingsOf('baseUrl: http://127.0.0.1:11434/v1\nmodel: qwen2.5:7b\n'))).toEqual({ model: 'qwen2.5:7b', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(modelChoice(settingsOf('baseUrl: http://127.0.0.1:11434/v1\nmodel: llama\n', {}, { model: { value: 'deepseek:deepseek-chat', flag: '--model' } }))).toEqual({
      model: 'deepseek:deepseek-chat',
    });
  });

  it('incomplete settings are CONFIG naming the fix', () => {
    expect(() => modelChoice(settingsOf('baseUrl: http://127.0.0.1:1/v1\n'))).toThrow(/needs a model.*model: <id>/);
    expect(() => modelChoice(settingsOf('provider: anthropic\n'))).toThrow(/needs a model/);
    expect(() => modelChoice(settingsOf('provider: openai-compatible\nmodel: x\n'))).toThrow(/needs baseUrl/);
    expect(modelChoice(settingsOf(''))).toEqual({});
  });
});
