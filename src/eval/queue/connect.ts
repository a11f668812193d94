// The check before queue mode starts: Redis answers at the URL, the database exists and the
// server is new enough for BullMQ. Each failure is a CONFIG error naming the URL and the fix,
// raised before any job is queued (nothing to lose yet). docs/eval.md, "Queue mode".

import { Redis } from 'ioredis';
import { ConfigError } from '../../errors.js';
import { QUEUE_CONNECT_TIMEOUT_MS } from './limits.js';
import { withTimeout } from './bounded.js';
import { connectionOptions, type RedisTarget } from './redis-url.js';

/** BullMQ's Lua scripts need Redis 5 or newer. */
const MIN_REDIS_MAJOR = 5;

/** A client for our own keys (the run registry); the caller quits it. Fails fast only while connecting. */
export async function connectRedis(target: RedisTarget, timeoutMs = QUEUE_CONNECT_TIMEOUT_MS): Promise<Redis> {
  const { db: _db, ...options } = connectionOptions(target);
  const client = new Redis({ ...options, lazyConnect: true, connectTimeout: timeoutMs, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  // The socket's error (ECONNREFUSED, ENOTFOUND) says more than the "Connection is closed." connect() rejects with.
  let socketError: unknown;
  client.on('error', (error: unknown) => void (socketError ??= error));
  try {
    await withTimeout(client.connect(), timeoutMs, `no answer within ${timeoutMs} ms`);
  } catch (error) {
    client.disconnect();
    throw new ConfigError(
      `Cannot reach Redis at ${target.display} (${socketError !== undefined ? reason(socketError) : closedEarly(error)}). Start redis-server there, or pass the URL of a running one with --queue redis://host:port/db.`,
    );
  }
  try {
    const info = await client.info('server');
    const major = Number(/redis_version:(\d+)/.exec(info)?.[1] ?? '0');
    if (major < MIN_REDIS_MAJOR) {
      throw new ConfigError(`Redis at ${target.display} is version ${major}; BullMQ needs ${MIN_REDIS_MAJOR} or newer. Upgrade redis-server.`);
    }
    try {
      await client.select(target.db);
    } catch (error) {
      const databases = await client.config('GET', 'databases').then((r) => (Array.isArray(r) ? String(r[1]) : '?'), () => '?');
      throw new ConfigError(
        `Redis at ${target.display} has no database ${target.db} (${reason(error)}); it has ${databases} (0 to ${Number(databases) - 1 || '?'}). Use one of them in the URL, e.g. /0.`,
      );
    }
    // Reconnect after a Redis restart from now on (commands wait meanwhile instead of failing).
    client.options.db = target.db;
    client.options.retryStrategy = (times: number) => Math.min(times * 200, 2_000);
    client.options.maxRetriesPerRequest = null;
    return client;
  } catch (error) {
    client.disconnect();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Redis at ${target.display} refused the first commands (${reason(error)}). Check the URL's user and password.`);
  }
}

/** ioredis says only "Connection is closed." when the server hung up without a socket error. */
function closedEarly(error: unknown): string {
  const text = reason(error);
  return /connection is closed/i.test(text) ? 'the server closed the connection before answering: is it Redis, and ready?' : text;
}

function reason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
