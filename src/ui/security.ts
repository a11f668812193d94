// Who may talk to `ptc ui` (docs/ui.md, "Token and origin"): every request carries the launch's
// token (query `token` or header `X-PTC-Token`), and a browser request made on behalf of another
// origin is refused, whatever it carries.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header the page's fetch calls carry; EventSource and assets use the `token` query parameter. */
export const TOKEN_HEADER = 'x-ptc-token';
export const TOKEN_QUERY = 'token';

/** 32 random bytes as base64url: unguessable, and safe in a URL without escaping. */
export function newUiToken(): string {
  return randomBytes(32).toString('base64url');
}

export type AccessDecision = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

/**
 * Whether `req` may be served. `origin` is the server's own (`http://127.0.0.1:<port>`).
 * 403 when the request comes from another origin: an `Origin` header that is not ours, or a
 * `Sec-Fetch-Site` of `cross-site` / `same-site` (another port of this host is same-site, and a
 * page there must not read or drive this one). 401 when the token is missing or wrong.
 */
export function checkAccess(req: IncomingMessage, url: URL, origin: string, token: string): AccessDecision {
  const requestOrigin = req.headers.origin;
  if (requestOrigin !== undefined && requestOrigin !== origin) {
    return { ok: false, status: 403, message: `Requests from ${requestOrigin} are refused: only pages served by this ptc ui (${origin}) may use it.` };
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    return { ok: false, status: 403, message: `A ${site} request is refused: only pages served by this ptc ui (${origin}) may use it.` };
  }
  const header = req.headers[TOKEN_HEADER];
  const given = typeof header === 'string' ? header : url.searchParams.get(TOKEN_QUERY);
  if (given === null || !sameToken(given, token)) {
    return { ok: false, status: 401, message: 'Missing or wrong token: open the URL that `ptc ui` printed (it ends with ?token=...).' };
  }
  return { ok: true };
}

/** Constant-time comparison, so the token cannot be guessed byte by byte from response times. */
function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
