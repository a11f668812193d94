// The page's side of the API (docs/ui.md, "API"). The launch token comes from the page's own URL
// and goes with every request: as a header on fetch calls, in the query of the event stream
// (EventSource cannot set headers).

const token = new URLSearchParams(location.search).get('token') ?? '';

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { 'x-ptc-token': token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(payload.error ?? `${method} ${path}: HTTP ${response.status}`);
  return payload;
}

export const api = {
  config: () => call('GET', '/api/config'),
  sessions: () => call('GET', '/api/sessions'),
  start: (text, preset, model, plan) => call('POST', '/api/sessions', { text, preset, model, plan }),
  send: (id, text, preset, model, plan) => call('POST', `/api/sessions/${encodeURIComponent(id)}/messages`, { text, preset, model, plan }),
  review: (id, callId, decision, comment) => call('POST', `/api/sessions/${encodeURIComponent(id)}/plan`, { id: callId, decision, comment }),
  stop: (id) => call('POST', `/api/sessions/${encodeURIComponent(id)}/stop`),
  compact: (id, focus, model) => call('POST', `/api/sessions/${encodeURIComponent(id)}/compact`, { focus, model }),
  answer: (id, callId, decision, reason) => call('POST', `/api/sessions/${encodeURIComponent(id)}/approvals`, { id: callId, decision, reason }),
};

/**
 * Watches a session: `onEvent(index, event)` for each log line (the whole log first), `onText(text, replace)`
 * for streamed model text, `onStatus(active)`. Returns a function that stops watching.
 */
export function watchSession(id, { onEvent, onText, onStatus, onError }) {
  const source = new EventSource(`/api/sessions/${encodeURIComponent(id)}/events?token=${encodeURIComponent(token)}`);
  source.addEventListener('session', (e) => onEvent(Number(e.lastEventId), JSON.parse(e.data)));
  source.addEventListener('text', (e) => onText(JSON.parse(e.data), false));
  source.addEventListener('draft', (e) => onText(JSON.parse(e.data), true));
  source.addEventListener('status', (e) => onStatus(JSON.parse(e.data).active));
  source.addEventListener('error', () => onError?.(source.readyState));
  return () => source.close();
}
