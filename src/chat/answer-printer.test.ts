import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createAnswerPrinter } from './answer-printer.js';
import { createMarkdownRenderer } from './markdown-render.js';

function sink(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { out, text: () => chunks.join('') };
}

describe('createAnswerPrinter', () => {
  const answer = ['# Ti', 'tle\n\nSome **bo', 'ld**.\r\nBell\u0007 and \u001b[2J', ' end'];

  it('writes the text byte for byte when raw, ending the turn with a newline', () => {
    const { out, text } = sink();
    const printer = createAnswerPrinter(out, 'raw', () => 80);
    for (const delta of answer) printer.text(delta);
    printer.end();
    expect(text()).toBe(`${answer.join('')}\n`);
  });

  it('escapes control characters on a terminal without colour, keeping the lines', () => {
    const { out, text } = sink();
    const printer = createAnswerPrinter(out, 'escape', () => 80);
    for (const delta of answer) printer.text(delta);
    printer.end();
    expect(text()).toBe('# Title\n\nSome **bold**.\nBell\\u0007 and \\u001b[2J end\n');
  });

  it('renders each block once it is complete, and the rest at the end', () => {
    const { out, text } = sink();
    const printer = createAnswerPrinter(out, { render: createMarkdownRenderer }, () => 80);
    const plain = () => text().replace(/\u001b\[[0-9;]*m/g, '');
    printer.text('# Title\n\nSome **bo');
    expect(plain()).toMatch(/Title\n$/);
    expect(plain()).not.toContain('Some');
    printer.text('ld**.');
    printer.end();
    expect(plain()).toMatch(/^# Title\n\nSome bold\.\n$/);
  });
});

describe('visibleKeepingLines', () => {
  it('escapes controls and bidi controls, keeps line breaks, tabs and emoji joiners', async () => {
    const { visibleKeepingLines } = await import('../terminal-text.js');
    expect(visibleKeepingLines('a\r\nb\tc\u001b[2J\u202e\u2028👩\u200d💻\r')).toBe('a\nb\tc\\u001b[2J\\u202e\\u2028👩\u200d💻\\u000d');
  });
});
