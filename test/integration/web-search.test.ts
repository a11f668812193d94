// web_search as a user meets it (docs/web-tools.md): the backend set in a real config file, read by
// the real `ptc` binary (dist/, built by the global setup); called natively by a scripted model in
// the standard preset and as `tools.web_search` from a sandboxed program; the backends are loopback
// servers speaking SearXNG's and Brave's formats (test/helpers/search-servers.ts).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness } from '../../src/harness.js';
import { runPtc, type PtcRun } from '../helpers/run-ptc.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { BRAVE_GOOD_KEY, startBrave, startSearxng, type SearchServer } from '../helpers/search-servers.js';


let searxng: SearchServer;
let brave: SearchServer;
let base: string;
let workspace: string;
let userConfig: string;
let env: Record<string, string>;
let model: ScriptedServer | undefined;

beforeAll(async () => {
  [searxng, brave] = await Promise.all([startSearxng(), startBrave()]);
});
afterAll(async () => {
  await Promise.all([searxng.close(), brave.close()]);
});
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-web-search-it-')));
  workspace = path.join(base, 'ws');
  fs.mkdirSync(workspace);
  userConfig = path.join(base, 'xdg', 'ptc', 'config.yaml');
  fs.mkdirSync(path.dirname(userConfig), { recursive: true });
  env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, PTC_HOME: path.join(base, 'ptc-home'), XDG_CONFIG_HOME: path.join(base, 'xdg') };
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  fs.rmSync(base, { recursive: true, force: true });
});

function ptc(args: string[], options: { input?: string; extraEnv?: Record<string, string> } = {}): Promise<PtcRun> {
  return runPtc(args, { cwd: workspace, env: { ...env, ...options.extraEnv }, ...(options.input !== undefined ? { input: options.input } : {}) });
}

/** A program that returns the search's value, or the code and message of its ToolCallError. */
const SEARCH_PROGRAM = `
try {
  const found = await tools.web_search({ query: 'streams', count: 2, sites: ['nodejs.org'] });
  return { urls: found.results.map((r) => r.url), backend: found.backend };
} catch (error) {
  return { code: error.code, message: error.message };
}`;

describe('web_search through a harness', () => {
  it('is a native tool of the standard preset and tools.web_search in a program, against SearXNG', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'standard', allowNet: true, env, webSearch: { backend: 'searxng', url: searxng.base } });
    try {
      expect(harness.preset.tools).toContain('web_search');
      const native = await harness.tools.execute('web_search', { query: 'streams', count: 1 });
      expect(native.isError, native.content).toBe(false);
      expect(native.content).toContain('https://nodejs.org/api/stream.html');
      const scope = await harness.ptcScope();
      const run = await harness.tools.execute('run_code', { code: SEARCH_PROGRAM, description: 'search' }, { scope });
      expect(run.isError, run.content).toBe(false);
      expect(JSON.parse(run.content)).toEqual({
        urls: ['https://nodejs.org/api/stream.html', 'https://nodejs.org/en/learn/modules/backpressuring-in-streams'],
        backend: 'searxng',
      });
    } finally {
      await harness.dispose();
    }
  });
});

describe('web_search configured in the config file', () => {
  it('ptc run (standard preset): the model calls web_search natively and gets title, URL and snippet', async () => {
    model = await startScriptedOpenAIServer([reply.toolCall('web_search', { query: 'backpressure' }), reply.text('Found it.')]);
    fs.writeFileSync(userConfig, `baseUrl: ${model.baseUrl}\nmodel: scripted\nwebSearch:\n  backend: searxng\n  url: ${searxng.base}\n`);
    const run = await ptc(['run', '--preset', 'standard', '--allow-net', 'find backpressure docs']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Found it.');
    const messages = (model.requests[1]!.json as { messages: { role: string; content: string }[] }).messages;
    const toolMessage = messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.content).toContain('Backpressuring in Streams');
    expect(toolMessage.content).toContain('https://nodejs.org/en/learn/modules/backpressuring-in-streams');
    // The schema the model was given names the tool.
    const offered = (model.requests[0]!.json as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offered).toContain('web_search');
  });

  it('ptc exec: a program searches Brave, configured by environment, with the key from its variable', async () => {
    const extraEnv = { PTC_WEB_SEARCH_BACKEND: 'brave', PTC_WEB_SEARCH_URL: `${brave.base}/res/v1/web/search`, PTC_WEB_SEARCH_API_KEY_ENV: 'MY_BRAVE', MY_BRAVE: BRAVE_GOOD_KEY };
    const run = await ptc(['exec', '--preset', 'standard', '--allow-net', '-'], { input: SEARCH_PROGRAM, extraEnv });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ urls: ['https://nodejs.org/api/stream.html', 'https://nodejs.org/en/learn/modules/backpressuring-in-streams'], backend: 'brave' });
    expect(brave.seen.at(-1)!.headers['x-subscription-token']).toBe(BRAVE_GOOD_KEY);
    const shown = await ptc(['config'], { extraEnv });
    expect(shown.stdout).toMatch(/webSearch\s+brave http:\/\/127\.0\.0\.1:\d+\/res\/v1\/web\/search key in \$MY_BRAVE\s+env PTC_WEB_SEARCH_BACKEND/);
    expect(shown.stdout).not.toContain(BRAVE_GOOD_KEY);
  });

  it('with no backend configured, a program gets CONFIG naming webSearch and how to set it', async () => {
    const run = await ptc(['exec', '--preset', 'standard', '--allow-net', '-'], { input: SEARCH_PROGRAM });
    expect(run.code, run.stderr).toBe(0);
    const value = JSON.parse(run.stdout) as { code: string; message: string };
    expect(value.code).toBe('CONFIG');
    expect(value.message).toContain('webSearch');
    expect(value.message).toContain('backend: searxng');
  });

  it('ptc config shows the file:line; a bad backend or a key in the file is CONFIG at its line', async () => {
    fs.writeFileSync(userConfig, `model: m\nwebSearch: { backend: searxng, url: "${searxng.base}" }\n`);
    const shown = await ptc(['config']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`webSearch\\s+searxng ${searxng.base.replace(/[.]/g, '\\.')}\\s+${userConfig.replace(/[.]/g, '\\.')}:2`));

    fs.writeFileSync(userConfig, `webSearch:\n  backend: bing\n`);
    const bad = await ptc(['config']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${userConfig}:2`);
    expect(bad.stderr).toContain('searxng, brave');

    fs.writeFileSync(userConfig, `webSearch:\n  backend: brave\n  apiKey: sk-secret\n`);
    const keyed = await ptc(['config']);
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toContain('apiKeyEnv');
    expect(keyed.stderr).not.toContain('sk-secret');
  });

  it('ptc tools --preset standard lists web_search with its arguments', async () => {
    const listed = await ptc(['tools', '--preset', 'standard']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^web_search {2}\(/m);
    expect(listed.stdout).toContain('web_fetch');
    expect(listed.stdout).toMatch(/sites/);
  });
});
