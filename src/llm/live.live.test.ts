// One tiny request to the real DeepSeek API. Runs only when DEEPSEEK_API_KEY is set.

import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { resolveModel, SDK_CALL_SETTINGS, withModelRetry } from './index.js';

describe.skipIf(!process.env.DEEPSEEK_API_KEY)('DeepSeek live', () => {
  it('streams a short answer', async () => {
    const resolved = resolveModel({ model: 'deepseek:deepseek-chat' });
    const text = await withModelRetry(
      async ({ markOutputStarted }) => {
        const result = streamText({
          model: resolved.model,
          prompt: 'Reply with the single word: pong',
          maxOutputTokens: 10,
          ...SDK_CALL_SETTINGS,
          onError: () => {},
        });
        let collected = '';
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') {
            markOutputStarted();
            collected += part.text;
          } else if (part.type === 'error') {
            throw part.error;
          }
        }
        return collected;
      },
      { context: resolved },
    );
    expect(text.toLowerCase()).toContain('pong');
  }, 60_000);
});
