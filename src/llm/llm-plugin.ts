// The `llm` row (docs/presets.md, "Shipped rows"): provides the `llm` service, the AI SDK client for
// the settings a front-end hands it (src/llm/ai-sdk-client.ts). This module imports nothing of the AI
// SDK: the client's module loads at the first `open`, so assembling a preset for `ptc tools` stays light.

import type { Plugin } from '../context/context.js';
import type { LlmService } from './llm-service.js';

export const aiSdkLlm: LlmService = {
  async open(settings) {
    const { openAiSdkClient } = await import('./ai-sdk-client.js');
    return openAiSdkClient(settings);
  },
};

export const llmPlugin: Plugin = {
  name: 'llm',
  apply(ctx) {
    ctx.provide('llm', aiSdkLlm);
  },
};
