import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import type { LanguagePack } from './language-pack.js';
import { execLanguageOf, parseProgramLanguage, programLanguageOf } from './program-language.js';
import { DEFAULT_LANGUAGE, languagePack, languagePackOr, languagePacks, packOfFile, packOfFlag, registerLanguagePack } from './table.js';

/** A pack with words only: the table never calls its runtime. */
function pack(id: string, extensions: string[], flags: string[]): LanguagePack {
  return {
    id,
    name: id.toUpperCase(),
    extensions,
    flags,
    lineComment: '--',
    sdk: { render: (tools) => tools.map((t) => `-- ${t.name}`).join('\n'), bindingDeclaration: '-- tools', fence: id },
    prompt: {
      instructions: () => [`\`code\` is ${id}.`],
      indexInstructions: (count) => [`${count} tools.`],
      exampleProgram: ({ tool }) => `call ${tool}`,
      runCodeDescription: () => `Run ${id}.`,
    },
    createRuntime: () => Promise.reject(new Error('not in this test')),
  };
}

function thrown(fn: () => unknown): HarnessError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('the table of language packs', () => {
  it('holds the shipped packs, TypeScript first and the default', () => {
    expect(languagePacks().map((p) => p.id).slice(0, 2)).toEqual(['typescript', 'python']);
    expect(DEFAULT_LANGUAGE).toBe('typescript');
    expect(languagePack('python')?.runtimeRow).toBe('python-runtime');
    expect(languagePack('cobol')).toBeUndefined();
    expect(languagePack(undefined)).toBeUndefined();
    expect(languagePackOr('cobol').id).toBe('typescript');
  });

  it('dispatches files and --lang values as before: .py is Python, anything else TypeScript', () => {
    expect(programLanguageOf('a.py')).toBe('python');
    expect(programLanguageOf('A.PY')).toBe('python');
    expect(programLanguageOf('a.ts')).toBe('typescript');
    expect(programLanguageOf('a.txt')).toBe('typescript');
    expect(programLanguageOf('-')).toBe('typescript');
    expect(parseProgramLanguage('Py')).toBe('python');
    expect(parseProgramLanguage('typescript')).toBe('typescript');
    expect(parseProgramLanguage('cobol')).toBeUndefined();
    expect(execLanguageOf('a.py', 'ts')).toBe('typescript');
    expect(execLanguageOf('a.ts', 'py')).toBe('python');
    expect(execLanguageOf('a.py', undefined)).toBe('python');
  });

  it('a registered pack joins every lookup until it is removed', () => {
    const remove = registerLanguagePack(pack('lua', ['.lua'], ['lua']));
    try {
      expect(languagePack('lua')?.name).toBe('LUA');
      expect(packOfFile('init.LUA')?.id).toBe('lua');
      expect(packOfFlag('LUA')?.id).toBe('lua');
      expect(programLanguageOf('x.lua')).toBe('lua');
      expect(languagePacks().map((p) => p.id)).toContain('lua');
    } finally {
      remove();
    }
    expect(languagePack('lua')).toBeUndefined();
    expect(programLanguageOf('x.lua')).toBe('typescript');
  });

  it('refuses an id, extension or --lang value another pack has: CONFIG naming what and whose', () => {
    for (const [candidate, what] of [
      [pack('python', ['.py3'], ['py3']), 'the id "python"'],
      [pack('snake', ['.PY'], ['snake']), 'the extension .PY'],
      [pack('snake', ['.snake'], ['ts']), 'the --lang value ts'],
    ] as const) {
      const error = thrown(() => registerLanguagePack(candidate));
      expect(error.code).toBe('CONFIG');
      expect(error.message).toContain(what);
      expect(error.message).toMatch(/already the (Python|TypeScript) pack's; choose another/);
    }
    // Nothing of a refused pack stays.
    expect(languagePack('snake')).toBeUndefined();
  });

  it('removing twice, or after another pack took the id, leaves the table as it is', () => {
    const remove = registerLanguagePack(pack('lua', ['.lua'], ['lua']));
    remove();
    const again = registerLanguagePack(pack('lua', ['.lua'], ['lua']));
    remove();
    expect(languagePack('lua')).toBeDefined();
    again();
    expect(languagePack('lua')).toBeUndefined();
  });
});
