// What the ACP tests share: an editor built on the ACP SDK's client side that records the session
// updates and permission requests it gets, and a per-test workspace and session directory whose
// agents and scripted model server are closed after each test.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach } from 'vitest';
import { createAcpAgent, type AcpAgentOptions } from '../../src/acp/acp-agent.js';
import { startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

export type PermissionAnswer = (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

export interface RecordingEditor {
  readonly updates: acp.SessionUpdate[];
  readonly permissions: acp.RequestPermissionRequest[];
  readonly app: acp.ClientApp;
}

/** Allows each request once (the option every permission request of ours has). */
export const allowOnce: PermissionAnswer = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });

/** An editor that records session updates and answers permission requests with `answer`. */
export function recordingEditor(answer: PermissionAnswer = allowOnce): RecordingEditor {
  const updates: acp.SessionUpdate[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params.update))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return answer(params);
    });
  return { updates, permissions, app };
}

export type AcpAgent = ReturnType<typeof createAcpAgent>;

export interface AcpFixture {
  /** This test's workspace (a real path) and session directory. */
  readonly workspace: string;
  readonly sessionDir: string;
  /** This test's model server, started by the first `serve`. */
  readonly server: ScriptedServer | undefined;
  /** Starts the scripted model server of this test (once; later calls return it). */
  serve(script: ScriptedReply[], options?: Parameters<typeof startScriptedOpenAIServer>[1]): Promise<ScriptedServer>;
  /** An agent on this test's session directory against `baseUrl`, closed after the test. */
  agent(options: Pick<AcpAgentOptions, 'harness' | 'baseUrl' | 'approve'> & Partial<AcpAgentOptions>): AcpAgent;
  /** Closes the agents made so far (each lets go of its sessions' turn locks), as an editor that quits. */
  closeAgents(): Promise<void>;
}

/** Registers the per-test setup in the calling test file; `seed` fills each new workspace. */
export function acpFixture(prefix: string, seed: (workspace: string) => void = () => {}): AcpFixture {
  let workspace = '';
  let sessionDir = '';
  let server: ScriptedServer | undefined;
  const agents: AcpAgent[] = [];
  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-ws-`)));
    sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-log-`));
    seed(workspace);
  });
  const closeAgents = async () => {
    for (const agent of agents.splice(0)) await agent.close();
  };
  afterEach(async () => {
    await closeAgents();
    await server?.close();
    server = undefined;
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(sessionDir, { recursive: true, force: true });
  });
  return {
    get workspace() {
      return workspace;
    },
    get sessionDir() {
      return sessionDir;
    },
    get server() {
      return server;
    },
    async serve(script, options) {
      server ??= await startScriptedOpenAIServer(script, options);
      return server;
    },
    agent(options) {
      const agent = createAcpAgent({ model: 'scripted', env: {}, sessionDir, version: '0.0.0-test', ...options });
      agents.push(agent);
      return agent;
    },
    closeAgents,
  };
}
