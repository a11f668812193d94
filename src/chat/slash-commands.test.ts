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
