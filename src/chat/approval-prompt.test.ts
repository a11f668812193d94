import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalText, displayPath } from './approval-prompt.js';

describe('approvalText', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-approval-text-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shows a write as the diff against the file as it is, its text escaped', async () => {
    const lines = await approvalText({ id: 'w1', tool: 'write', args: { path: 'a.txt', content: 'one\n\u001b[2Jtwo\r\n' } }, { cwd: dir, color: false });
    expect(lines[0]).toBe('\nApproval needed: write {"path":"a.txt","content":"one\\n\\u001b[2Jtwo\\r\\n"}');
    expect(lines.slice(1)).toEqual(['  the change it would make:', '  --- a/a.txt', '  +++ b/a.txt', '  @@ -1,2 +1,2 @@', '   one', '  -two', '  +\\u001b[2Jtwo\\u000d']);
    expect(lines.join('\n')).not.toMatch(/[\u001b\r]/);
  });

  it('says why there is no diff, and escapes the why and the program', async () => {
    const lines = await approvalText(
      { id: 'p:ptc:1', tool: 'edit', args: { path: 'a.txt', old_string: 'zzz', new_string: 'y' }, parent: { id: 'p', tool: 'run_code', program: 'a\rb', description: 'd\u001b' }, why: 'protected\u0007' },
      { cwd: dir, color: false },
    );
    expect(lines).toContain('  from the program of run_code p ("d\\u001b"):');
    expect(lines).toContain('  | a\\u000db');
    expect(lines).toContain('  why: protected\\u0007');
    expect(lines.at(-1)).toBe('  (no diff for a.txt: the text to replace is not in the file now)');
  });

  it('names paths inside the workspace relative to it', () => {
    expect(displayPath('/w', '/w/src/a.ts')).toBe('src/a.ts');
    expect(displayPath('/w', 'src/a.ts')).toBe('src/a.ts');
    expect(displayPath('/w', '/etc/hosts')).toBe('/etc/hosts');
  });
});
