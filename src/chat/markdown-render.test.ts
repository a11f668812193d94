import { beforeAll, describe, expect, it } from 'vitest';
import type { MarkdownRenderer } from './markdown-render.js';

const ESC = '\u001b';
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('createMarkdownRenderer', () => {
  let renderer: MarkdownRenderer;
  beforeAll(async () => {
    // The chat decides colour; the colour library under the renderer reads the environment when it
    // loads and would say none (as under CI=1). Colour must come out regardless.
    const before = process.env['FORCE_COLOR'];
    process.env['FORCE_COLOR'] = '0';
    try {
      renderer = (await import('./markdown-render.js')).createMarkdownRenderer(80);
    } finally {
      if (before === undefined) delete process.env['FORCE_COLOR'];
      else process.env['FORCE_COLOR'] = before;
    }
  });

  it('renders headings, emphasis, lists, links and code without the markdown marks', () => {
    const out = renderer.render('## Plan\n\nSome **bold** text and [docs](https://example.org/a).\n\n- first\n- second\n\n```js\nconst a = 1;\n```\n');
    const text = plain(out);
    expect(text).toContain('Plan');
    expect(text).toContain('Some bold text');
    expect(text).not.toContain('**');
    expect(text).toMatch(/docs \(https:\/\/example\.org\/a\)/);
    expect(text).toMatch(/\* first\n\s+\* second/);
    expect(text).toContain('const a = 1;');
    expect(text).not.toContain('```');
    expect(out.endsWith('\n') && !out.endsWith('\n\n')).toBe(true);
  });

  it('colours bold text and highlights code when colour is on', () => {
    const out = renderer.render('Some **bold**.\n\n```js\nconst a = 1;\n```\n');
    expect(out).toContain(`${ESC}[1mbold`);
    // The keyword is coloured on its own (the highlighter), not the whole block in one colour.
    expect(out).toMatch(/\u001b\[\d+mconst\u001b\[39m/);
  });

  it('keeps line breaks, drops control characters and shows bidi controls as escapes before parsing', async () => {
    const { sanitize } = await import('./markdown-render.js');
    expect(sanitize('a\r\nb\t\u001b[31mc\u0007\u009b\u202eevil\u2066')).toBe('a\nb\t[31mc\\u202eevil\\u2066');
    // Emoji joiners are text, not controls.
    expect(sanitize('👩\u200d💻')).toBe('👩\u200d💻');
  });

  it('drops the control characters of the model text', () => {
    const out = renderer.render('red \u001b]0;title\u0007 and \u001b[2J cleared\n');
    expect(plain(out)).not.toMatch(/\u001b|\u0007/);
    expect(plain(out)).toContain('red');
  });
});
