import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { parseConfigText } from './load-config-file.js';

const FILE = '/home/u/.config/ptc/config.yaml';

function configError(text: string): HarnessError {
  try {
    parseConfigText(text, FILE);
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error('expected a CONFIG error');
}

describe('config file loading', () => {
  it('reads every key, with the file:line of each value and rule', () => {
    const text = [
      '# my settings',
      'provider: openai',
      'model: gpt-4.1',
      'apiKeyEnv: WORK_OPENAI_KEY',
      'preset: standard',
      'approve: writes',
      'maxSteps: 30',
      'protect: [secrets, .env]',
      'mcpServers:',
      '  memory: { command: npx, args: [-y, server-memory] }',
      '  remote: { type: http, url: "https://mcp.example.com" }',
      'permissions:',
      '  allow:',
      '    - "bash: npm test*"',
      '    - write: src/**',
      '    - read',
      '  deny:',
      '    - bash: [rm *, git push*]',
    ].join('\n');
    const loaded = parseConfigText(text, FILE);
    expect(loaded.values).toMatchObject({ provider: 'openai', model: 'gpt-4.1', apiKeyEnv: 'WORK_OPENAI_KEY', preset: 'standard', approve: 'writes', maxSteps: 30 });
    expect(loaded.origin(['model'])).toBe(`${FILE}:3`);
    expect(loaded.origin(['protect', 1])).toBe(`${FILE}:8`);
    expect(loaded.rules).toEqual([
      { effect: 'allow', tool: 'bash', pattern: 'npm test*', origin: `${FILE}:14` },
      { effect: 'allow', tool: 'write', pattern: 'src/**', origin: `${FILE}:15` },
      { effect: 'allow', tool: 'read', origin: `${FILE}:16` },
      { effect: 'deny', tool: 'bash', pattern: 'rm *', origin: `${FILE}:18` },
      { effect: 'deny', tool: 'bash', pattern: 'git push*', origin: `${FILE}:18` },
    ]);
    expect(Object.keys(loaded.values.mcpServers ?? {})).toEqual(['memory', 'remote']);
  });

  it('an empty file or one of comments only is an empty config', () => {
    expect(parseConfigText('', FILE).values).toEqual({});
    expect(parseConfigText('# nothing yet\n', FILE).rules).toEqual([]);
  });

  it('an unknown key is CONFIG at its line, with did-you-mean and the known keys', () => {
    const error = configError('model: x\nbase_url: http://localhost:1/v1\n');
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain(`${FILE}:2`);
    expect(error.message).toMatch(/unknown key `base_url`.*Did you mean "baseUrl"\?/);
    const nested = configError('permissions:\n  alow: [read]\n');
    expect(nested.message).toMatch(/:2: unknown key `alow` under permissions\. Did you mean "allow"\?/);
  });

  it('a bad value is CONFIG at its line saying what to set', () => {
    const error = configError('model: x\napprove: sometimes\n');
    expect(error.message).toMatch(/:2: approve: set it to one of never, writes, all/);
    expect(configError('maxSteps: -3\n').message).toMatch(/:1: maxSteps: set it to a positive integer/);
    expect(configError('mcpServers:\n  bad: { url: 3 }\n').message).toMatch(/:2: mcpServers\.bad/);
  });

  it('a bad rule is CONFIG at its line with the form to write', () => {
    const error = configError('permissions:\n  allow:\n    - read\n    - "todo: x"\n');
    expect(error.message).toMatch(/:4: permissions\.allow: .*only bash.*take a pattern.*write `todo`/);
  });

  it('YAML that does not parse is CONFIG at the line of the problem', () => {
    const error = configError('model: x\nprotect: [a, b\nmaxSteps: 3\n');
    expect(error.code).toBe('CONFIG');
    expect(error.message).toMatch(new RegExp(`${FILE.replace(/[.]/g, '\\.')}:\\d+: not valid YAML`));
    expect(error.message).toMatch(/fix the YAML there/);
  });

  it('an API key in the file is refused, naming apiKeyEnv as the fix', () => {
    const error = configError('model: x\napiKey: sk-123\n');
    expect(error.message).toMatch(/:2: `apiKey`: an API key is not kept in a config file.*apiKeyEnv/);
    expect(error.message).not.toContain('sk-123');
  });

  it('a list or a scalar is not a config', () => {
    expect(configError('- a\n- b\n').message).toMatch(/must be a map of keys/);
  });
});

describe('docs/config.md', () => {
  it('every YAML example on the page loads', async () => {
    const fs = await import('node:fs');
    const page = fs.readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
    const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const block of blocks) expect(() => parseConfigText(block, 'docs/config.md'), block).not.toThrow();
  });
});
