import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expandServerConfig, mcpConfigRow, readMcpConfigFile } from './config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-mcp-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('readMcpConfigFile', () => {
  it('reads stdio and http servers', () => {
    const file = write('ok.json', JSON.stringify({ mcpServers: { a: { command: 'x', args: ['1'] }, 'b-2': { type: 'http', url: 'http://127.0.0.1:1/mcp' } } }));
    expect(readMcpConfigFile(file)).toEqual({ mcpServers: { a: { command: 'x', args: ['1'] }, 'b-2': { type: 'http', url: 'http://127.0.0.1:1/mcp' } } });
    expect(mcpConfigRow(file)).toMatchObject({ name: 'mcp', at: `--mcp-config ${file}` });
  });

  it.each([
    ['a missing file', null, /does not exist/],
    ['not JSON', '{', /is not JSON/],
    ['a bad server name', JSON.stringify({ mcpServers: { 'a b': { command: 'x' } } }), /mcpServers\.a b: server names use only letters/],
    ['an unknown key', JSON.stringify({ mcpServers: { a: { command: 'x', shell: true } } }), /mcpServers\.a/],
    ['no mcpServers', JSON.stringify({ servers: {} }), /mcpServers/],
  ])('%s is CONFIG naming the file', (_label, text, message) => {
    const file = text === null ? path.join(dir, 'missing.json') : write(`bad-${Math.abs(text.length)}.json`, text);
    expect(() => readMcpConfigFile(file)).toThrow(expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(message) }));
    expect(() => readMcpConfigFile(file)).toThrow(file);
  });
});

describe('expandServerConfig', () => {
  const env = { TOKEN: 't0k', DIR: '/data' };

  it('expands ${VAR} in every string of a server', () => {
    expect(expandServerConfig('s', { command: '${DIR}/bin', args: ['--root=${DIR}'], env: { KEY: '${TOKEN}' }, cwd: '${DIR}' }, env)).toEqual({
      command: '/data/bin',
      args: ['--root=/data'],
      env: { KEY: 't0k' },
      cwd: '/data',
    });
    expect(expandServerConfig('h', { type: 'http', url: 'http://x/${TOKEN}', headers: { a: 'Bearer ${TOKEN}' } }, env)).toEqual({
      type: 'http',
      url: 'http://x/t0k',
      headers: { a: 'Bearer t0k' },
    });
  });

  it('leaves $VAR without braces alone and refuses an unset variable by name', () => {
    expect(expandServerConfig('s', { command: '$DIR' }, env)).toEqual({ command: '$DIR' });
    expect(() => expandServerConfig('s', { command: 'x', env: { K: '${NOPE}' } }, env)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('MCP server `s`: env.K uses ${NOPE}') }),
    );
  });
});
