import { describe, expect, it } from 'vitest';
import { stricterSandbox } from './sandbox-floor.js';

describe('stricterSandbox', () => {
  it('lets a job tighten the worker sandbox but never loosen it', () => {
    expect(stricterSandbox('off', 'auto')).toBe('auto');
    expect(stricterSandbox('required', 'auto')).toBe('required');
    expect(stricterSandbox('auto', 'required')).toBe('required');
    expect(stricterSandbox('off', 'off')).toBe('off');
  });
});
