// The `sessions` row (docs/presets.md, "Shipped rows"): provides the `sessions` service, JSONL files
// in the session directory (src/session/jsonl-store.ts, loaded at the first `open`).

import type { Plugin } from '../context/context.js';
import type { SessionsService } from './session-store.js';

export const jsonlSessions: SessionsService = {
  async open(dir) {
    const { jsonlSessionStore } = await import('./jsonl-store.js');
    return jsonlSessionStore(dir);
  },
};

export const sessionsPlugin: Plugin = {
  name: 'sessions',
  apply(ctx) {
    ctx.provide('sessions', jsonlSessions);
  },
};
