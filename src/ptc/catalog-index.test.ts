import { describe, expect, it } from 'vitest';
import { MAX_DECLARED_SDK_CHARS, MAX_DECLARED_SDK_TOOLS, MAX_INDEX_SUMMARY_CHARS, MAX_TOOLS_ALWAYS_DECLARED } from '../limits.js';
import { catalogEntry, chooseSdkPresentation, firstSentence, indexLine, toolGroup } from './catalog-index.js';
import { searchCatalog, words } from './catalog-search.js';

describe('chooseSdkPresentation', () => {
  it('declares small catalogs whatever their size and indexes above either limit', () => {
    expect(chooseSdkPresentation(MAX_TOOLS_ALWAYS_DECLARED, 10 * MAX_DECLARED_SDK_CHARS)).toBe('declarations');
    expect(chooseSdkPresentation(MAX_TOOLS_ALWAYS_DECLARED + 1, MAX_DECLARED_SDK_CHARS)).toBe('declarations');
    expect(chooseSdkPresentation(MAX_TOOLS_ALWAYS_DECLARED + 1, MAX_DECLARED_SDK_CHARS + 1)).toBe('index');
    expect(chooseSdkPresentation(MAX_DECLARED_SDK_TOOLS, 1_000)).toBe('declarations');
    expect(chooseSdkPresentation(MAX_DECLARED_SDK_TOOLS + 1, 1_000)).toBe('index');
  });
});

describe('index lines from untrusted tool data', () => {
  it('groups by the server part of <server>__<tool> only', () => {
    expect(toolGroup('memory__read_graph')).toBe('memory');
    expect(toolGroup('my-srv__a__b')).toBe('my-srv');
    for (const name of ['read', '__x', 'x__', 'a b__c']) expect(toolGroup(name)).toBe('other');
  });

  it('keeps the first sentence on one line, without controls, bounded', () => {
    expect(firstSentence('Reads a file.\nThen more. And more.')).toBe('Reads a file.');
    expect(firstSentence('Version 1.2 is fine? Yes.')).toBe('Version 1.2 is fine?');
    expect(firstSentence('line\u0000one\u2028two')).toBe('line one two');
    expect(firstSentence('   ')).toBe('(no description)');
    const long = firstSentence('x'.repeat(10_000));
    expect(long).toHaveLength(MAX_INDEX_SUMMARY_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('shows argument names as a call writes them, and quotes odd names', () => {
    const entry = (name: string, inputSchema: unknown) => catalogEntry({ name, description: 'D.', inputSchema: inputSchema as never });
    expect(indexLine(entry('t', { type: 'object', properties: { a: {}, 'b-c': {} }, required: ['a'] }))).toBe('t({ a, "b-c"? }) — D.');
    expect(indexLine(entry('t', { type: 'object' }))).toBe('t() — D.');
    expect(indexLine(entry('t', { anyOf: [{ type: 'object' }] }))).toBe('t(args) — D.');
    expect(indexLine(entry('bad\nname', { type: 'object' }))).toBe('"bad\\nname"() — D.');
  });
});

describe('searchCatalog', () => {
  const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object' } });
  const tools = [
    tool('fs__read_file', 'Read a file.'),
    tool('fs__write_file', 'Write a file.'),
    tool('kb__search_nodes', 'Search the graph for nodes.'),
    tool('web__fetch', 'Fetch a URL and read the page.'),
  ];

  it('ranks name words over description words, ties by name, and is deterministic', () => {
    expect(words('readFile some_thing')).toEqual(['read', 'file', 'some', 'thing']);
    expect(searchCatalog(tools, 'read', 10).map((h) => h.name)).toEqual(['fs__read_file', 'web__fetch']);
    expect(searchCatalog(tools, 'file', 10).map((h) => h.name)).toEqual(['fs__read_file', 'fs__write_file']);
    expect(searchCatalog(tools, 'file', 1).map((h) => h.name)).toEqual(['fs__read_file']);
    expect(searchCatalog([...tools].reverse(), 'file', 10)).toEqual(searchCatalog(tools, 'file', 10));
    expect(searchCatalog(tools, '?!', 10)).toEqual([]);
  });

  it('matches word stems in the query, names and descriptions alike', () => {
    const weather = [tool('wx__get_forecast', 'The weather for a city.'), tool('kb__lookup', 'Looks up forecasts in the archive.')];
    expect(searchCatalog(weather, 'forecasts', 10).map((h) => h.name)).toEqual(['wx__get_forecast', 'kb__lookup']);
    expect(searchCatalog(tools, 'searching', 10).map((h) => h.name)).toEqual(['kb__search_nodes']);
    expect(searchCatalog(tools, 'fetched pages', 10).map((h) => h.name)).toEqual(['web__fetch']);
    // Forms a prefix test misses: the stem is shorter than both words.
    const db = [tool('db__run_query', 'Runs SQL.'), tool('grep__find', 'Returns the matches of a pattern.')];
    expect(searchCatalog(db, 'queries', 10).map((h) => h.name)).toEqual(['db__run_query']);
    expect(searchCatalog(db, 'matching', 10).map((h) => h.name)).toEqual(['grep__find']);
  });

  it('ranks every name match before description-only matches, however many description words match', () => {
    const mixed = [tool('notes__list', 'Find weather data, weather maps and forecast weather reports.'), tool('a__weather', 'Something else.')];
    const hits = searchCatalog(mixed, 'weather forecast maps reports data', 10);
    expect(hits.map((h) => [h.name, h.nameMatch])).toEqual([
      ['a__weather', true],
      ['notes__list', false],
    ]);
    expect(hits[1]!.score).toBeGreaterThan(hits[0]!.score);
  });
});
