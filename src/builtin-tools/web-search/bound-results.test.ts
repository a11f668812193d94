import { describe, expect, it } from 'vitest';
import { MAX_WEB_SEARCH_URL_CHARS } from './limits.js';
import { boundResults, onSite } from './bound-results.js';

describe('boundResults', () => {
  it('makes titles and snippets plain text: tags removed, entities decoded, whitespace collapsed', () => {
    const [hit] = boundResults([{ title: 'A &amp; B &#39;q&#39; &#x1F600;', url: 'https://a.example/', snippet: 'one <strong>two</strong>\n\n three &lt;p&gt; &bogus;' }], { count: 5, sites: [] });
    expect(hit).toEqual({ title: "A & B 'q' 😀", url: 'https://a.example/', snippet: 'one two three <p> &bogus;' });
  });

  it('cuts at the limits with an ellipsis and never splits a surrogate pair', () => {
    const [hit] = boundResults([{ title: 'x'.repeat(3) + '😀'.repeat(5), url: 'https://a.example/', snippet: 'abcdefghij' }], { count: 1, sites: [], maxTitleChars: 5, maxSnippetChars: 4 });
    expect(hit!.snippet).toBe('abc…');
    expect(hit!.title).toBe('xxx…');
    expect(hit!.title.length).toBeLessThanOrEqual(5);
  });

  it('drops duplicates, non-http(s), non-string and over-long URLs; a missing title becomes the URL', () => {
    const hits = [
      { title: 'a', url: 'https://a.example/x' },
      { title: 'dup', url: 'https://a.example/x' },
      { title: 'ftp', url: 'ftp://a.example/f' },
      { title: 'num', url: 42 },
      { title: 'long', url: `https://a.example/${'y'.repeat(MAX_WEB_SEARCH_URL_CHARS)}` },
      { url: 'https://b.example/' },
    ];
    expect(boundResults(hits, { count: 10, sites: [] })).toEqual([
      { title: 'a', url: 'https://a.example/x', snippet: '' },
      { title: 'https://b.example/', url: 'https://b.example/', snippet: '' },
    ]);
  });

  it('keeps only hits on the sites (subdomains included, look-alikes not), at most count', () => {
    const hits = ['https://nodejs.org/a', 'https://docs.nodejs.org/b', 'https://evilnodejs.org/c', 'https://nodejs.org.evil.com/d', 'https://nodejs.org/e'].map((url) => ({ title: url, url }));
    expect(boundResults(hits, { count: 2, sites: ['nodejs.org'] }).map((h) => h.url)).toEqual(['https://nodejs.org/a', 'https://docs.nodejs.org/b']);
    expect(onSite('NodeJS.org.', 'nodejs.org')).toBe(true);
    expect(onSite('evilnodejs.org', 'nodejs.org')).toBe(false);
  });
});
