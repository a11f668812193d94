import { describe, expect, it } from 'vitest';
import { effectiveConfig } from './effective-config.js';
import { parseConfigText } from './load-config-file.js';

const user = (text: string) => parseConfigText(text, '/u/config.yaml');
const project = (text: string) => parseConfigText(text, '/ws/.ptc/config.yaml');

function configError(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  return expect.fail('expected a CONFIG error');
}

describe('the webSearch setting', () => {
  it('is taken whole from the highest layer that sets it: env > project > user', () => {
    const u = user('webSearch:\n  backend: brave\n  apiKeyEnv: MY_BRAVE\n');
    const p = project('model: m\nwebSearch: { backend: searxng, url: "http://127.0.0.1:8888" }\n');
    expect(effectiveConfig({ user: u, env: {} }).webSearch).toEqual({
      value: { backend: 'brave', apiKeyEnv: 'MY_BRAVE', origin: '/u/config.yaml:2' },
      layer: 'user',
      origin: '/u/config.yaml:2',
    });
    // The project's backend does not inherit the user's key variable.
    expect(effectiveConfig({ user: u, project: p, env: {} }).webSearch?.value).toEqual({ backend: 'searxng', url: 'http://127.0.0.1:8888', origin: '/ws/.ptc/config.yaml:2' });
    const fromEnv = effectiveConfig({ user: u, project: p, env: { PTC_WEB_SEARCH_BACKEND: 'brave', PTC_WEB_SEARCH_API_KEY_ENV: 'OTHER' } }).webSearch;
    expect(fromEnv).toMatchObject({ value: { backend: 'brave', apiKeyEnv: 'OTHER' }, layer: 'env', origin: 'env PTC_WEB_SEARCH_BACKEND' });
    expect(effectiveConfig({ env: { PTC_WEB_SEARCH_BACKEND: '' } }).webSearch).toBeUndefined();
  });

  it('a bad or stray environment variable is CONFIG naming it and the fix', () => {
    const bad = configError(() => effectiveConfig({ env: { PTC_WEB_SEARCH_BACKEND: 'bing' } }));
    expect(bad.code).toBe('CONFIG');
    expect(bad.message).toContain('PTC_WEB_SEARCH_BACKEND');
    expect(bad.message).toContain('searxng, brave');
    const url = configError(() => effectiveConfig({ env: { PTC_WEB_SEARCH_BACKEND: 'searxng', PTC_WEB_SEARCH_URL: 'localhost:8888' } }));
    expect(url.message).toContain('PTC_WEB_SEARCH_URL');
    const stray = configError(() => effectiveConfig({ env: { PTC_WEB_SEARCH_URL: 'http://127.0.0.1:8888' } }));
    expect(stray.code).toBe('CONFIG');
    expect(stray.message).toContain('PTC_WEB_SEARCH_BACKEND');
  });

  it('a file value is checked at load: unknown keys get a did-you-mean, a key itself is refused', () => {
    const typo = configError(() => user('webSearch:\n  backend: searxng\n  ulr: http://x\n'));
    expect(typo.code).toBe('CONFIG');
    expect(typo.message).toContain('/u/config.yaml:3');
    expect(typo.message).toContain('url');
    const keyed = configError(() => user('webSearch:\n  backend: brave\n  token: abc123\n'));
    expect(keyed.message).toContain('apiKeyEnv');
    expect(keyed.message).not.toContain('abc123');
    const missing = configError(() => user('webSearch:\n  url: http://127.0.0.1:8888\n'));
    expect(missing.message).toContain('backend');
  });
});
