// `ptc ui`'s HTTP server (docs/ui.md): node:http on 127.0.0.1, the page and its modules, a JSON API
// and one Server-Sent Events stream per watched session. Every request is checked first
// (security.ts): the launch token, our own origin and host. The server holds no logic of its own
// beyond moving requests to the library (session-hub.ts) and events to the browser.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

import type { ApprovalAnswer } from '../approvals/approvals.js';
import type { PlanReview } from '../plan-mode/plan-mode.js';
import { HarnessError } from '../errors.js';
import { UiAssets } from './assets.js';
import { checkAccess, newUiToken } from './security.js';
import { SessionHub, type UiRunSettings } from './session-hub.js';
import { MAX_UI_REQUEST_BODY_BYTES, UI_HEARTBEAT_MS, MIN_UI_TOKEN_CHARS } from './limits.js';

export interface UiServerOptions extends UiRunSettings {
  /** Default 0: a free port chosen by the system. */
  readonly port?: number;
  /** Default a fresh random token; tests and embedders may pass their own (at least 16 characters). */
  readonly token?: string;
}

export interface UiServer {
  /** What to open: `http://127.0.0.1:<port>/?token=<token>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: the only origin whose requests are served. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  /** Stops running turns (their logs end `aborted`), closes the event streams and the listener. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Listens on 127.0.0.1 and serves the UI; resolves once it is listening. */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const token = options.token ?? newUiToken();
  if (token.length < MIN_UI_TOKEN_CHARS) throw new HarnessError('CONFIG', `The ptc ui token must be at least ${MIN_UI_TOKEN_CHARS} characters.`);
  const assets = new UiAssets();
  const hub = new SessionHub(options);
  const streams = new Set<ServerResponse>();
  let origin = '';

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // CONFIG is the user's to fix (a bad preset, a missing API key, a busy session): the page shows the message.
      const status = error instanceof HarnessError && error.code === 'CONFIG' ? 400 : 500;
      if (!res.headersSent) sendJson(res, status, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', origin);
    if (req.headers.host !== new URL(origin).host) {
      // A name other than 127.0.0.1:<port> (DNS rebinding) is not ours, whatever the token.
      return sendJson(res, 403, { error: `Unexpected Host ${String(req.headers.host)}; open ${origin}.` });
    }
    const access = checkAccess(req, url, origin, token);
    if (!access.ok) return sendJson(res, access.status, { error: access.message });
    const method = req.method ?? 'GET';
    const route = url.pathname;

    if (method === 'GET' && route === '/') return sendAsset(res, assets.page(token), true);
    if (method === 'GET' && (route.startsWith('/app/') || route.startsWith('/vendor/'))) {
      const asset = assets.get(route);
      return asset ? sendAsset(res, asset, false) : sendJson(res, 404, { error: `No file ${route}.` });
    }
    if (method === 'GET' && route === '/api/config') {
      return sendJson(res, 200, {
        cwd: options.harness.cwd,
        presets: hub.presets(),
        defaultPreset: options.defaultPreset,
        model: hub.defaultModel(),
        approve: options.approve,
        plan: options.plan === true,
      });
    }
    if (method === 'GET' && route === '/api/sessions') {
      return sendJson(res, 200, { sessions: hub.sessions().map((s) => ({ ...s, active: hub.isActive(s.id) })) });
    }
    if (method === 'POST' && route === '/api/sessions') {
      const body = await readJson(req);
      const sessionId = await hub.start(turnRequest(body));
      return sendJson(res, 201, { sessionId });
    }
    const match = /^\/api\/sessions\/([A-Za-z0-9._-]+)\/(events|messages|stop|approvals|compact|plan)$/.exec(route);
    if (match) {
      const [, sessionId, action] = match as unknown as [string, string, string];
      if (method === 'GET' && action === 'events') return openStream(req, res, sessionId);
      if (method === 'POST' && action === 'messages') {
        const body = await readJson(req);
        await hub.continue(sessionId, turnRequest(body));
        return sendJson(res, 202, { sessionId });
      }
      if (method === 'POST' && action === 'compact') {
        const body = await readJson(req);
        const focus = typeof body.focus === 'string' ? body.focus : undefined;
        const model = typeof body.model === 'string' ? body.model : undefined;
        const logged = await hub.compact(sessionId, focus, model);
        return sendJson(res, 200, { logged: logged.map((e) => e.type) });
      }
      if (method === 'POST' && action === 'stop') {
        return hub.stop(sessionId) ? sendJson(res, 202, { stopping: true }) : sendJson(res, 409, { error: 'No turn of this session is running here.' });
      }
      // A proposed plan's review (docs/plan-mode.md): approve, or send it back with a comment.
      if (method === 'POST' && action === 'plan') {
        const body = await readJson(req);
        const { id, review } = planReview(body);
        return hub.review(sessionId, id, review)
          ? sendJson(res, 200, { reviewed: id })
          : sendJson(res, 409, { error: `No plan ${id} of this session waits for review.` });
      }
      if (method === 'POST' && action === 'approvals') {
        const body = await readJson(req);
        const { id, answer } = approvalAnswer(body);
        return hub.answer(sessionId, id, answer)
          ? sendJson(res, 200, { answered: id })
          : sendJson(res, 409, { error: `No call ${id} of this session waits for approval.` });
      }
    }
    return sendJson(res, 404, { error: `No route ${method} ${route}.` });
  };

  const openStream = (req: IncomingMessage, res: ServerResponse, sessionId: string): void => {
    const lastId = Number(req.headers['last-event-id'] ?? new URL(req.url ?? '/', origin).searchParams.get('after') ?? -1);
    const after = Number.isInteger(lastId) && lastId >= -1 ? lastId : -1;
    // Subscribing reads the log first, so a missing session is an HTTP error, not an empty stream.
    const send = (event: string, data: unknown, id?: number) => {
      res.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    };
    const unsubscribe = hub.subscribe(sessionId, after, {
      event: (index, event) => {
        start();
        send('session', event, index);
      },
      text: (delta) => {
        start();
        send('text', delta);
      },
      draft: (text) => {
        start();
        send('draft', text);
      },
      status: (active) => {
        start();
        send('status', { active });
      },
    });
    streams.add(res);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), UI_HEARTBEAT_MS);
    heartbeat.unref();
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(res);
    };
    req.on('close', end);
  };

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'is in use' : error.code === 'EACCES' ? 'is not allowed for this user' : `cannot be used (${error.message})`;
      reject(new HarnessError('CONFIG', `Port ${options.port ?? 0} on ${HOST} ${why}; pass another --port, or --port 0 for a free one.`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${HOST}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    origin,
    port,
    token,
    close: () => {
      closing ??= (async () => {
        await hub.close();
        for (const res of streams) res.end();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendAsset(res: ServerResponse, asset: { contentType: string; body: Buffer }, isPage: boolean): void {
  const headers: Record<string, string | number> = { ...SECURITY_HEADERS, 'content-type': asset.contentType, 'content-length': asset.body.length };
  if (isPage) {
    // The import map is the one inline script; it gets this response's nonce.
    const nonce = randomBytes(16).toString('base64');
    const body = Buffer.from(asset.body.toString('utf8').replace('<script type="importmap">', `<script type="importmap" nonce="${nonce}">`));
    headers['content-security-policy'] =
      `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.end(body);
    return;
  }
  res.writeHead(200, headers);
  res.end(asset.body);
}

/** A JSON object body; anything else (including a form post, which a foreign page could send) is refused. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) throw new HarnessError('CONFIG', 'Send the body as application/json.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_UI_REQUEST_BODY_BYTES) throw new HarnessError('CONFIG', `The request body is over ${MAX_UI_REQUEST_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HarnessError('CONFIG', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HarnessError('CONFIG', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function turnRequest(body: Record<string, unknown>) {
  const { text, preset, model, plan } = body;
  if (typeof text !== 'string') throw new HarnessError('CONFIG', 'The message needs a "text" string.');
  if (plan !== undefined && typeof plan !== 'boolean') throw new HarnessError('CONFIG', 'The message\'s "plan" (plan mode for this turn) must be true or false.');
  return {
    text,
    ...(typeof plan === 'boolean' ? { plan } : {}),
    ...(typeof preset === 'string' ? { preset } : {}),
    ...(typeof model === 'string' ? { model } : {}),
  };
}

function planReview(body: Record<string, unknown>): { id: string; review: PlanReview } {
  const { id, decision, comment } = body;
  if (typeof id !== 'string' || id === '') throw new HarnessError('CONFIG', 'A plan review needs the plan_propose call "id".');
  if (decision === 'approve') return { id, review: { decision } };
  if (decision === 'send-back') return { id, review: { decision, comment: typeof comment === 'string' ? comment : '' } };
  throw new HarnessError('CONFIG', 'A plan review "decision" is approve or send-back.');
}

function approvalAnswer(body: Record<string, unknown>): { id: string; answer: ApprovalAnswer } {
  const { id, decision, reason } = body;
  if (typeof id !== 'string' || id === '') throw new HarnessError('CONFIG', 'An approval needs the call "id".');
  if (decision === 'allow' || decision === 'allow-tool' || decision === 'allow-always') return { id, answer: { decision } };
  if (decision === 'deny') return { id, answer: { decision, ...(typeof reason === 'string' && reason.trim() !== '' ? { reason: reason.trim() } : {}) } };
  throw new HarnessError('CONFIG', 'An approval "decision" is allow, allow-tool, allow-always or deny.');
}
