// The `--queue redis://[user:password@]host:port[/db]` URL of queue mode: parsed once at the
// boundary into connection options, and shown in messages and run.json without its password.
// docs/eval.md, "Queue mode".

import { ConfigError } from '../../errors.js';

export interface RedisTarget {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  /** The URL without its password: what messages and run.json show. */
  readonly display: string;
}

const DEFAULT_PORT = 6379;
const EXAMPLE = 'redis://127.0.0.1:6379/0';

export function parseRedisUrl(raw: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`--queue "${raw}" is not a URL; give the Redis server as ${EXAMPLE}.`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(`--queue "${redact(url)}" is not a Redis URL (${url.protocol}); give it as ${EXAMPLE} (rediss:// for TLS).`);
  }
  if (url.hostname === '') throw new ConfigError(`--queue "${redact(url)}" names no host; give it as ${EXAMPLE}.`);
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d+$/.test(dbText)) {
    throw new ConfigError(`--queue "${redact(url)}": the path must be a database number, not "/${dbText}"; give it as ${EXAMPLE}.`);
  }
  const db = dbText === '' ? 0 : Number(dbText);
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(`--queue "${redact(url)}": query options are not read; give only ${EXAMPLE}.`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const username = url.username !== '' ? decodeURIComponent(url.username) : undefined;
  const password = url.password !== '' ? decodeURIComponent(url.password) : undefined;
  return {
    host,
    port,
    db,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls: url.protocol === 'rediss:',
    display: redact(url),
  };
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href.replace(/\/$/, '');
}

/** ioredis options for BullMQ. `maxRetriesPerRequest: null` makes commands wait through a Redis restart instead of failing. */
export function connectionOptions(target: RedisTarget): {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: Record<string, never>;
  maxRetriesPerRequest: null;
} {
  return {
    host: target.host,
    port: target.port,
    db: target.db,
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}
