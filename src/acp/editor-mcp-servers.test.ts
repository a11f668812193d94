import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { mcpConfigSchema } from '../mcp/client/config.js';
import { editorMcpRow } from './editor-mcp-servers.js';

describe('editorMcpRow', () => {
  it('maps stdio and http servers to the mcp row shape of a config file, the {name, value} lists as objects', () => {
    const row = editorMcpRow([
      { name: 'memory', command: '/usr/bin/node', args: ['server.js'], env: [{ name: 'MEMORY_FILE_PATH', value: '/tmp/m.jsonl' }] },
      { type: 'http', name: 'remote', url: 'https://example.com/mcp', headers: [{ name: 'authorization', value: 'Bearer t' }] },
      { name: 'bare', command: '/usr/bin/srv', args: [], env: [] },
    ]);
    expect(row).toEqual({
      name: 'mcp',
      at: expect.stringContaining('mcpServers'),
      config: {
        mcpServers: {
          memory: { command: '/usr/bin/node', args: ['server.js'], env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { authorization: 'Bearer t' } },
          bare: { command: '/usr/bin/srv' },
        },
      },
    });
    // The row's config passes the mcp row's own schema, as a --mcp-config file's does.
    expect(mcpConfigSchema.safeParse(row!.config).success).toBe(true);
  });

  it('no servers, no row', () => {
    expect(editorMcpRow([])).toBeUndefined();
  });

  it("a human-readable name becomes a tool prefix; two that become one, an empty one and SSE are CONFIG naming the server", () => {
    expect(Object.keys((editorMcpRow([{ name: 'GitHub tools!', command: 'x', args: [], env: [] }])!.config as { mcpServers: object }).mcpServers)).toEqual(['GitHub_tools']);
    const fail = (servers: Parameters<typeof editorMcpRow>[0]) => {
      try {
        editorMcpRow(servers);
      } catch (error) {
        return error as HarnessError;
      }
      throw new Error('expected a failure');
    };
    const twice = fail([
      { name: 'a b', command: 'x', args: [], env: [] },
      { name: 'a_b', command: 'y', args: [], env: [] },
    ]);
    expect(twice.code).toBe('CONFIG');
    expect(twice.message).toMatch(/a_b.*distinct names/);
    expect(fail([{ name: '!!!', command: 'x', args: [], env: [] }]).message).toContain('"!!!"');
    const sse = fail([{ type: 'sse', name: 'old', url: 'https://example.com/sse', headers: [] }]);
    expect(sse.code).toBe('CONFIG');
    expect(sse.message).toMatch(/"old".*SSE.*type http/);
  });
});
