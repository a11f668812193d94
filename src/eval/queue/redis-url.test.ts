import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../errors.js';
import { connectionOptions, parseRedisUrl } from './redis-url.js';

function configError(raw: string): HarnessError {
  try {
    parseRedisUrl(raw);
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error(`${raw} was accepted`);
}

describe('parseRedisUrl', () => {
  it('reads host, port and database, defaulting to 6379 and db 0', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6390/3')).toMatchObject({ host: '127.0.0.1', port: 6390, db: 3, tls: false, display: 'redis://127.0.0.1:6390/3' });
    expect(parseRedisUrl('redis://cache.internal')).toMatchObject({ host: 'cache.internal', port: 6379, db: 0 });
    expect(parseRedisUrl('rediss://[::1]:7000')).toMatchObject({ host: '::1', port: 7000, tls: true });
  });

  it('keeps the password for the connection but never shows it', () => {
    const target = parseRedisUrl('redis://worker:s%40cret@10.0.0.5:6379/1');
    expect(target).toMatchObject({ username: 'worker', password: 's@cret' });
    expect(target.display).toBe('redis://worker:***@10.0.0.5:6379/1');
    expect(connectionOptions(target)).toMatchObject({ host: '10.0.0.5', port: 6379, db: 1, username: 'worker', password: 's@cret', maxRetriesPerRequest: null });
  });

  it('refuses what is not a Redis URL with CONFIG, naming the input and the expected form', () => {
    for (const raw of ['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis://127.0.0.1:6379/zero', 'redis://127.0.0.1:6379/0?tls=1']) {
      const error = configError(raw);
      expect(error.code).toBe('CONFIG');
      expect(error.message).toContain('redis://127.0.0.1:6379/0');
    }
    expect(configError('redis://u:pw@127.0.0.1:6379/x').message).not.toContain('pw');
  });
});
