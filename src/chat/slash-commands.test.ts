import { describe, expect, it } from 'vitest';
import { completeLine } from './completer.js';
import { parseLine, SLASH_COMMAND_NAMES, type ChatControl } from './slash-commands.js';

describe('parseLine', () => {
  it('finds commands with their arguments', () => {
    const parsed = parseLine('/preset  minimal ');
    expect(parsed.kind).toBe('command');
    expect(parsed.kind === 'command' && [parsed.command.name, parsed.args]).toEqual(['preset', 'minimal']);
    expect(parseLine('/EXIT').kind).toBe('command');
  });

  it('answers an unknown command with the near names and never makes it a message', () => {
    const typo = parseLine('/hlep');
    expect(typo.kind).toBe('unknown');
    expect(typo.kind === 'unknown' && typo.error).toMatch(/unknown command \/hlep\. Did you mean \/help\?/);
    expect(typo.kind === 'unknown' && typo.error).toMatch(/\/help lists the commands/);
    const prefix = parseLine('/se');
    expect(prefix.kind === 'unknown' && prefix.error).toMatch(/Did you mean \/sessions\?/);
    const far = parseLine('/xyzzy');
    expect(far.kind).toBe('unknown');
    expect(far.kind === 'unknown' && far.error).not.toMatch(/Did you mean/);
  });

  it('sends paths, plain text and // lines to the model', () => {
    expect(parseLine('/etc/hosts has what?')).toEqual({ kind: 'message', text: '/etc/hosts has what?' });
    expect(parseLine('//help me')).toEqual({ kind: 'message', text: '/help me' });
    expect(parseLine('hello /help')).toEqual({ kind: 'message', text: 'hello /help' });
  });
});

describe('completeLine', () => {
  const control = { presetNames: () => ['minimal', 'ptc', 'ptc-python'], modelCandidates: () => ['deepseek:deepseek-chat', 'deepseek:deepseek-reasoner'] } as unknown as ChatControl;

  it('completes command names and the arguments that have candidates', () => {
    expect(completeLine('/he', control)).toEqual([['/help '], '/he']);
    expect(completeLine('/', control)[0]).toEqual(SLASH_COMMAND_NAMES.filter((n) => n !== 'quit').map((n) => `/${n}`));
    expect(completeLine('/preset pt', control)).toEqual([['ptc', 'ptc-python'], 'pt']);
    expect(completeLine('/approve w', control)).toEqual([['writes'], 'w']);
    expect(completeLine('/model deepseek:deepseek-r', control)).toEqual([['deepseek:deepseek-reasoner'], 'deepseek:deepseek-r']);
    expect(completeLine('hello', control)).toEqual([[], 'hello']);
    expect(completeLine('/clear x', control)).toEqual([[], 'x']);
  });
});

describe('/skills', () => {
  it('lists the skills with the file that wins, and shows one body', async () => {
    const { default: os } = await import('node:os');
    const { default: fs } = await import('node:fs');
    const { default: path } = await import('node:path');
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-slash-skills-'));
    const printed: string[] = [];
    const control = { cwd, print: (lines: readonly string[]) => printed.push(...lines) } as unknown as ChatControl;
    try {
      const list = parseLine('/skills');
      expect(list.kind).toBe('command');
      if (list.kind === 'command') await list.command.run(list.args, control);
      expect(printed.some((l) => /^writing-ptc-programs {2}\(shipped\) {2}\/.*SKILL\.md$/.test(l))).toBe(true);
      printed.length = 0;
      const show = parseLine('/skills writing-ptc-programs');
      if (show.kind === 'command') await show.command.run(show.args, control);
      expect(printed).toContain('# Writing PTC programs');
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
