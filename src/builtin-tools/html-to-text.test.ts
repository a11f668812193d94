import { describe, expect, it } from 'vitest';

import { MAX_HTML_DEPTH } from './limits.js';
import { htmlToText } from './html-to-text.js';

describe('htmlToText', () => {
  it('renders headings, paragraphs, emphasis and links resolved against the page', () => {
    const html = `<!doctype html><html><head><title>Ignored title</title><style>p { color: red }</style>
      <script>document.write("<p>not content</p>")</script></head>
      <body><h1>Main  title</h1><p>First <b>bold</b> and <em>soft</em> words,
      a <a href="/docs/start?x=1&amp;y=2">relative link</a> and <a href="https://example.org/">absolute</a>.</p>
      <p>Second&nbsp;paragraph &mdash; with &lt;entities&gt; &#169; &#x263A;</p>
      <a href="javascript:alert(1)">script link</a> <a href="#top">anchor</a></body></html>`;
    expect(htmlToText(html, 'http://127.0.0.1:8080/guide/page.html')).toBe(
      [
        '# Main title',
        '',
        'First **bold** and *soft* words, a [relative link](http://127.0.0.1:8080/docs/start?x=1&y=2) and [absolute](https://example.org/).',
        '',
        'Second paragraph — with <entities> © ☺',
        '',
        'script link anchor',
      ].join('\n'),
    );
  });

  it('uses the title as a heading when the page has no h1', () => {
    expect(htmlToText('<title>Only &amp; title</title><p>text</p>')).toBe('# Only & title\n\ntext');
  });

  it('renders nested lists, ordered lists with their start, and quotes', () => {
    const html = `<ul><li>one<li>two<ul><li>two.a</li><li>two.b</li></ul></li></ul>
      <ol start="3"><li><p>three</p></li><li>four</li></ol><blockquote><p>quoted</p><p>more</p></blockquote>`;
    expect(htmlToText(html)).toBe(['- one', '- two', '  - two.a', '  - two.b', '', '3. three', '4. four', '', '> quoted', '>', '> more'].join('\n'));
  });

  it('keeps code blocks verbatim in fences, with their language; inline code in backticks', () => {
    const html = `<p>Run <code>npm  test</code>:</p><pre><code class="language-ts">const a = 1;\n\n\n  if (a &lt; 2) {\n    go();\n  }\n</code></pre><p>after</p>`;
    expect(htmlToText(html)).toBe(['Run `npm test`:', '', '```ts', 'const a = 1;', '', '', '  if (a < 2) {', '    go();', '  }', '```', '', 'after'].join('\n'));
  });

  it('chooses a fence longer than any backtick run inside the block', () => {
    expect(htmlToText('<pre>a ``` b</pre>')).toBe('````\na ``` b\n````');
  });

  it('renders tables as pipe rows with a header rule', () => {
    const html = '<table><thead><tr><th>Name</th><th>Size</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td>c</td><td>2</td></tr></tbody></table>';
    expect(htmlToText(html)).toBe(['| Name | Size |', '| --- | --- |', '| a\\|b | 1 |', '| c | 2 |'].join('\n'));
  });

  it('drops hidden and non-content elements, and images without alt text', () => {
    const html = `<div hidden>secret</div><span aria-hidden="true">icon</span><svg><text>svg</text></svg>
      <noscript>enable js</noscript><img src="x.png"><img src="/logo.png" alt="Logo"><form><button>Go</button>kept</form>`;
    expect(htmlToText(html, 'https://h.test/a/')).toBe('![Logo](https://h.test/logo.png)\nkept');
  });

  it('survives broken markup: unclosed tags, stray closers, a lone <, an unterminated comment', () => {
    expect(htmlToText('<p>a < b</span><div>c<p>d')).toBe('a < b\n\nc\n\nd');
    expect(htmlToText('<p>x</p><!-- never closed <p>y</p>')).toBe('x');
    expect(htmlToText('<p title="unterminated>z')).toBe('');
  });

  it('bounds nesting: a page nested far deeper than MAX_HTML_DEPTH converts without exhausting the stack', () => {
    const depth = MAX_HTML_DEPTH * 20;
    const html = `${'<div><ul><li><blockquote>'.repeat(depth)}deep${'</blockquote></li></ul></div>'.repeat(depth)}<p>after</p>`;
    const text = htmlToText(html);
    expect(text).toContain('deep');
    expect(text.endsWith('after')).toBe(true);
  });
});
