// `ptc ui --watch`'s session hub (docs/plugin-reload.md, "ptc ui"): each turn builds its harness
// anew; an edited plugin file runs its new version on the next turn, and an edit whose apply throws
// is reported while that turn runs the old version. Real harnesses and files; only the model's
// choices are scripted (a real server on loopback).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionHub } from '../../src/ui/session-hub.js';
import { lastToolResult, reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const plugin = (version: string, extra = '') =>
  `export const name = 'greeter';\nexport function apply(ctx: any): void {\n  ${extra}ctx.tools.register({ name: 'greet', description: 'Greets (version ${version}).', inputSchema: { type: 'object', properties: {} }, execute: async () => ({ greeting: 'hello from ${version}' }) });\n}\n`;

let server: ScriptedServer | undefined;
let hub: SessionHub | undefined;
let tmp: string | undefined;
afterEach(async () => {
  await hub?.close();
  await server?.close();
  if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  hub = undefined;
  server = undefined;
  tmp = undefined;
});

describe('ptc ui --watch', () => {
  it('the next turn runs the edited plugin; an edit whose apply throws is reported and the old version runs', async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-reload-ui-')));
    const workspace = path.join(tmp, 'ws');
    const plugins = path.join(tmp, 'plugins');
    fs.mkdirSync(workspace);
    fs.mkdirSync(plugins);
    const file = path.join(plugins, 'greeter.ts');
    fs.writeFileSync(file, plugin('v1'));
    server = await startScriptedOpenAIServer([
      reply.toolCall('greet', {}, 'g1'),
      reply.text('one'),
      reply.toolCall('greet', {}, 'g2'),
      reply.text('two'),
      reply.toolCall('greet', {}, 'g3'),
      reply.text('three'),
    ]);
    const notes: string[] = [];
    hub = new SessionHub({
      harness: { cwd: workspace, plugins: [file], watchPlugins: true, env: { PTC_HOME: path.join(tmp, 'home') } },
      defaultPreset: 'minimal',
      model: 'scripted',
      baseUrl: server.baseUrl,
      env: { PTC_HOME: path.join(tmp, 'home') },
      sessionDir: path.join(tmp, 'sessions'),
      approve: 'never',
      onNote: (line) => notes.push(line),
    });
    const turnEnds = async (id: string, requests: number) => {
      await server!.waitForRequests(requests);
      await waitUntil('the turn ends', () => !hub!.isActive(id));
    };

    const id = await hub.start({ text: 'Greet me.' });
    await turnEnds(id, 2);
    expect(lastToolResult(server.requests[1])).toContain('hello from v1');
    expect(notes).toEqual([]);

    fs.writeFileSync(file, plugin('v2'));
    await hub.continue(id, { text: 'Again.' });
    await turnEnds(id, 4);
    expect(lastToolResult(server.requests[3])).toContain('hello from v2');
    expect(notes).toEqual([`ptc ui: reloaded plugin "greeter" from ${file}`]);

    fs.writeFileSync(file, plugin('v3', "throw new Error('v3 cannot start');\n  "));
    await hub.continue(id, { text: 'Once more.' });
    await turnEnds(id, 6);
    expect(lastToolResult(server.requests[5])).toContain('hello from v2');
    expect(notes).toHaveLength(2);
    expect(notes[1]).toContain('CONFIG');
    expect(notes[1]).toContain('v3 cannot start');
    expect(notes[1]).toContain('keeps running');
  }, 120_000);
});
