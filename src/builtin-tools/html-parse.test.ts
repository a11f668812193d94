import { describe, expect, it } from 'vitest';

import { decodeEntities } from './html-parse.js';

describe('decodeEntities', () => {
  it('decodes numeric references safely', () => {
    expect(decodeEntities('&#0;&#xD800;&#x110000;&#65;&unknown;&amp')).toBe('\ufffd\ufffd\ufffdA&unknown;&');
  });
});
