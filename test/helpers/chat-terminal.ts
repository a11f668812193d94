// The built `ptc chat` on a real terminal (tmux, tmux-terminal.ts) against a scripted model named
// deepseek-chat (so the catalog knows its window and price): a per-test home, workspace and session
// directory, the terminals and the model server closed after each test. Registered by the calling
// test file, inside its describe block.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { TmuxTerminal } from './tmux-terminal.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/ptc.cjs');

export interface ChatStart {
  /** Flags after `chat --base-url … --model deepseek-chat --session-dir …`. */
  readonly args?: readonly string[];
  /** Variables set for the chat (NO_COLOR and FORCE_COLOR are unset first). */
  readonly env?: Readonly<Record<string, string>>;
  /** The tmux session's name, one per terminal of a test. */
  readonly name?: string;
}

export interface ChatTerminals {
  readonly tmp: string;
  readonly workspace: string;
  readonly sessions: string;
  readonly server: ScriptedServer | undefined;
  /** Starts the model server (first call only) and `ptc chat` on a new terminal; waits for its prompt. */
  start(script: ScriptedReply[], options?: ChatStart): Promise<TmuxTerminal>;
}

export function chatTerminals(prefix: string, seed: (workspace: string) => void = () => {}): ChatTerminals {
  let tmp = '';
  let server: ScriptedServer | undefined;
  const terminals: TmuxTerminal[] = [];
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    fs.mkdirSync(path.join(tmp, 'ws'));
    seed(path.join(tmp, 'ws'));
  });
  afterEach(async () => {
    for (const t of terminals.splice(0)) t.close();
    await server?.close();
    server = undefined;
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const fixture: ChatTerminals = {
    get tmp() {
      return tmp;
    },
    get workspace() {
      return path.join(tmp, 'ws');
    },
    get sessions() {
      return path.join(tmp, 'sessions');
    },
    get server() {
      return server;
    },
    async start(script, options = {}) {
      server ??= await startScriptedOpenAIServer(script);
      const vars = Object.entries({ HOME: tmp, PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...options.env }).map(([k, v]) => `${k}=${v}`);
      const command = [
        `cd ${fixture.workspace} && env -u NO_COLOR -u FORCE_COLOR ${vars.join(' ')}`,
        `${process.execPath} ${bin} chat --base-url ${server.baseUrl} --model deepseek-chat --session-dir ${fixture.sessions} ${(options.args ?? []).join(' ')};`,
        'echo "EXIT=$?"; sleep 60',
      ].join(' ');
      const terminal = new TmuxTerminal(tmp, options.name ?? 'chat', command);
      terminals.push(terminal);
      await terminal.waitFor('the prompt', /› $/m);
      return terminal;
    },
  };
  return fixture;
}
