import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { failureOutput, isHarnessToolOutput, modelOutputOf, toolOutputOf } from './tool-output.js';

describe('harness tool output', () => {
  it('sends the content as text, a failure as error-text, deferred contexts after the content', () => {
    expect(modelOutputOf(toolOutputOf({ content: 'ok', isError: false, value: 1 }))).toEqual({ type: 'text', value: 'ok' });
    const failed = toolOutputOf({ content: 'Error [EXCEPTION]: boom', isError: true, error: { code: 'EXCEPTION', message: 'boom' } });
    expect(modelOutputOf(failed)).toEqual({ type: 'error-text', value: 'Error [EXCEPTION]: boom' });
    const noted = toolOutputOf({ content: 'data', isError: false, deferredContexts: [{ source: 'srv', text: '[image content omitted]' }] });
    expect(modelOutputOf(noted)).toEqual({ type: 'text', value: 'data\n\n[image content omitted]' });
  });

  it('maps a throw to an error result with a stable code', () => {
    expect(failureOutput(new HarnessError('RUNTIME_UNAVAILABLE', 'gone'))).toEqual({
      content: 'Error [RUNTIME_UNAVAILABLE]: gone',
      isError: true,
      error: { code: 'RUNTIME_UNAVAILABLE', message: 'gone' },
    });
    expect(failureOutput(new Error('odd'))).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED', message: 'odd' } });
  });

  it('narrows outputs', () => {
    expect(isHarnessToolOutput({ content: 'x', isError: false })).toBe(true);
    expect(isHarnessToolOutput({ content: 1, isError: false })).toBe(false);
    expect(isHarnessToolOutput(null)).toBe(false);
  });
});
