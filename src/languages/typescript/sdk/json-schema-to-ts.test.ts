import { describe, expect, test } from 'vitest';
import { compileTs } from '../../../../test/helpers/compile-ts.js';
import type { JsonSchema } from '../../../json.js';
import { jsonSchemaToTs, MAX_SCHEMA_DEPTH, renderSchemaType } from './json-schema-to-ts.js';

/** Strips the indentation of the first non-empty line from every line, and the outer blank lines. */
function code(strings: TemplateStringsArray): string {
  const lines = strings.raw.join('').split('\n');
  while (lines[0]?.trim() === '') lines.shift();
  while (lines[lines.length - 1]?.trim() === '') lines.pop();
  const indent = /^ */.exec(lines[0] ?? '')![0].length;
  return `${lines.map((l) => l.slice(indent)).join('\n')}\n`;
}

/** The type expression of `type Root = ...;` when the output has no helpers. */
function typeOf(schema: unknown): string {
  const out = jsonSchemaToTs(schema as JsonSchema);
  const match = /^type Root = ([\s\S]*);\n$/.exec(out);
  if (!match) throw new Error(`unexpected output:\n${out}`);
  return match[1]!;
}

/** Every schema rendered anywhere in this file, compiled together at the end under distinct names. */
const rendered: unknown[] = [];
function render(schema: unknown, name?: string): string {
  rendered.push(schema);
  return jsonSchemaToTs(schema as JsonSchema, name === undefined ? undefined : { name });
}

describe('primitives and literals', () => {
  test.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'number' }, 'number'],
    [{ type: 'integer' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'null' }, 'null'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ type: ['integer', 'number'] }, 'number'],
    [{ type: 'string', nullable: true }, 'string | null'],
    [true, 'unknown'],
    [false, 'never'],
    [{}, 'unknown'],
    [{ enum: ['a"b', 'line\nbreak', 1, -2.5, 0, true, null] }, '"a\\"b" | "line\\nbreak" | 1 | -2.5 | 0 | true | null'],
    [{ type: 'string', enum: ['a', 'b', 'a'] }, '"a" | "b"'],
    [{ enum: [] }, 'never'],
    [{ enum: 'a' }, 'unknown'],
    [{ const: 'x\u2028y' }, '"x\\u2028y"'],
    [{ const: { k: [1, 'two'], 'a-b': null } }, '{ k: [1, "two"]; "a-b": null }'],
    [{ const: 1e400 }, 'number'],
  ])('%j → %s', (schema, expected) => {
    rendered.push(schema);
    expect(typeOf(schema)).toBe(expected);
  });
});

describe('objects', () => {
  test('required and optional properties keep schema order', () => {
    const schema = { type: 'object', properties: { b: { type: 'string' }, a: { type: 'integer' } }, required: ['b'] };
    expect(render(schema)).toBe(code`
      type Root = {
        b: string;
        a?: number;
      };
    `);
  });

  test('additionalProperties schema beside properties widens the index signature to fit them', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
      required: ['a'],
      additionalProperties: { type: 'number' },
    };
    expect(render(schema)).toBe(code`
      type Root = {
        a: string;
        b?: boolean;
        [key: string]: number | string | boolean | undefined;
      };
    `);
  });

  test('additionalProperties true, false, and absent', () => {
    const props = { a: { type: 'string' } };
    expect(typeOf({ type: 'object', properties: props, additionalProperties: true })).toBe(
      '{\n  a?: string;\n  [key: string]: unknown;\n}',
    );
    expect(typeOf({ type: 'object', properties: props, additionalProperties: false })).toBe('{\n  a?: string;\n}');
    expect(typeOf({ type: 'object', properties: props })).toBe('{\n  a?: string;\n}');
  });

  test('objects without properties', () => {
    expect(typeOf({ type: 'object' })).toBe('Record<string, unknown>');
    expect(typeOf({ type: 'object', properties: {} })).toBe('Record<string, unknown>');
    expect(typeOf({ type: 'object', additionalProperties: { type: 'integer' } })).toBe('Record<string, number>');
    expect(typeOf({ additionalProperties: { type: 'string' } })).toBe('Record<string, string>');
    expect(typeOf({ type: 'object', additionalProperties: false })).toBe('{}');
  });

  test('an object is inferred from properties when type is missing', () => {
    expect(typeOf({ properties: { x: { type: 'number' } }, required: ['x'] })).toBe('{\n  x: number;\n}');
  });

  test('patternProperties: unknown alone, an open index signature on an object', () => {
    expect(typeOf({ patternProperties: { '^x': { type: 'string' } } })).toBe('unknown');
    expect(typeOf({ type: 'object', patternProperties: { '^x': { type: 'string' } } })).toBe(
      'Record<string, unknown>',
    );
  });

  test('property names that are not identifiers are quoted, __proto__ included', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"my-key":{"type":"string"},"__proto__":{"type":"number"},' +
        '"constructor":{"type":"null"},"a\\"b":{},"*/":{},"0":{},"读":{},"$ok_1":{},"":{},' +
        '"line\\u2028sep":{}},"required":["__proto__"]}',
    ) as unknown;
    expect(render(schema)).toBe(code`
      type Root = {
        "0"?: unknown;
        "my-key"?: string;
        __proto__: number;
        constructor?: null;
        "a\"b"?: unknown;
        "*/"?: unknown;
        "读"?: unknown;
        $ok_1?: unknown;
        ""?: unknown;
        "line\u2028sep"?: unknown;
      };
    `);
  });

  test('inherited members are never read as schema keywords or properties', () => {
    const properties = Object.create({ inherited: { type: 'string' } }) as Record<string, unknown>;
    properties.own = { type: 'string' };
    const schema = Object.create({ type: 'number' }) as Record<string, unknown>;
    expect(typeOf(schema)).toBe('unknown');
    expect(typeOf({ type: 'object', properties })).toBe('{\n  own?: string;\n}');
  });

  test('nested objects are indented', () => {
    const schema = {
      type: 'object',
      properties: {
        outer: {
          type: 'object',
          properties: { inner: { type: 'object', properties: { leaf: { type: 'string', description: 'A leaf.' } } } },
        },
      },
    };
    expect(render(schema)).toBe(code`
      type Root = {
        outer?: {
          inner?: {
            /** A leaf. */
            leaf?: string;
          };
        };
      };
    `);
  });
});

describe('arrays and tuples', () => {
  test.each([
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array' }, 'unknown[]'],
    [{ type: 'array', items: true }, 'unknown[]'],
    [{ type: 'array', items: false }, '[]'],
    [{ items: { type: ['string', 'number'] } }, '(string | number)[]'],
    [{ type: 'array', items: { enum: [-1, 1] } }, '(-1 | 1)[]'],
    [{ type: 'array', items: { const: -1 } }, '(-1)[]'],
    [{ type: 'array', items: { type: 'array', items: { type: 'boolean' } } }, 'boolean[][]'],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 }, '[string, number]'],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2 }, '[string, number, ...unknown[]]'],
    [
      { type: 'array', prefixItems: [{ type: 'string' }], items: { type: ['number', 'null'] }, minItems: 1 },
      '[string, ...(number | null)[]]',
    ],
    [
      { type: 'array', prefixItems: [{ type: 'string' }, { type: ['string', 'number'] }], items: false, minItems: 1 },
      '[string, (string | number)?]',
    ],
    [{ type: 'array', prefixItems: [{ type: 'string' }], items: false }, '[string?]'],
    [{ type: 'array', items: [{ type: 'string' }, { type: 'null' }], additionalItems: false, minItems: 2 }, '[string, null]'],
  ])('%j → %s', (schema, expected) => {
    rendered.push(schema);
    expect(typeOf(schema)).toBe(expected);
  });
});

describe('combinators', () => {
  test.each([
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [{ oneOf: [{ type: 'string' }, { type: 'string' }, { enum: ['a', null] }] }, 'string | "a" | null'],
    [{ anyOf: [{ type: 'string' }, {}] }, 'unknown'],
    [{ anyOf: [] }, 'never'],
    [{ allOf: [{ type: 'string' }, { enum: ['a', 'b'] }] }, 'string & ("a" | "b")'],
    [{ allOf: [{ type: 'string' }, true] }, 'string'],
    [{ allOf: [{ type: 'string' }, false] }, 'never'],
    [{ type: 'string', anyOf: [{ const: 'a' }, { const: 'b' }] }, 'string & ("a" | "b")'],
    [{ type: 'object', anyOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
  ])('%j → %s', (schema, expected) => {
    rendered.push(schema);
    expect(typeOf(schema)).toBe(expected);
  });

  test('allOf of objects is an intersection with the union parenthesised', () => {
    const schema = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } } },
        { anyOf: [{ type: 'object', properties: { b: { type: 'number' } }, required: ['b'] }, { type: 'null' }] },
      ],
    };
    expect(render(schema)).toBe(code`
      type Root = {
        a?: string;
      } & ({
        b: number;
      } | null);
    `);
  });
});

describe('$ref', () => {
  test('a linked list through "#"', () => {
    const schema = {
      description: 'A list node.',
      type: 'object',
      properties: { value: { type: 'number' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
      required: ['value', 'next'],
    };
    expect(render(schema, 'List')).toBe(code`
      /** A list node. */
      type List = {
        value: number;
        next: List | null;
      };
    `);
  });

  test('a tree through $defs, with helpers in a namespace named after the type', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' }, meta: { $ref: '#/definitions/Meta' } },
      required: ['root'],
      $defs: {
        Unused: { type: 'string' },
        Node: {
          description: 'A tree node.',
          type: 'object',
          properties: {
            value: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
            byName: { type: 'object', additionalProperties: { $ref: '#/$defs/Node' } },
          },
          required: ['value', 'children'],
        },
      },
      definitions: { Meta: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    expect(render(schema, 'Tree')).toBe(code`
      type Tree = {
        root: Tree.Node;
        meta?: Tree.Meta;
      };

      declare namespace Tree {
        type Meta = Record<string, string>;

        /** A tree node. */
        type Node = {
          value: string;
          children: Tree.Node[];
          byName?: {
            [key: string]: Tree.Node;
          };
        };
      }
    `);
  });

  test('a direct self-reference degrades to unknown instead of a circular alias', () => {
    expect(typeOf({ $ref: '#' })).toBe('unknown');
    expect(typeOf({ anyOf: [{ $ref: '#' }, { type: 'string' }] })).toBe('unknown');
    expect(typeOf({ allOf: [{ $ref: '#' }, { type: 'string' }] })).toBe('string');
    expect(typeOf({ type: 'object', additionalProperties: { $ref: '#' } })).toBe('{\n  [key: string]: Root;\n}');
  });

  test('a cycle of definitions that only refer to each other is cut', () => {
    const schema = {
      $ref: '#/$defs/A',
      $defs: { A: { $ref: '#/$defs/B' }, B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'string' }] } },
    };
    expect(render(schema)).toBe(code`
      type Root = Root.A;

      declare namespace Root {
        type A = Root.B;

        type B = unknown;
      }
    `);
  });

  test('a cycle reached first through an object member is still cut where it is direct', () => {
    const schema = {
      anyOf: [{ type: 'object', properties: { b: { $ref: '#/$defs/B' } } }, { $ref: '#/$defs/B' }],
      $defs: { B: { anyOf: [{ $ref: '#' }, { type: 'number' }] } },
    };
    const out = render(schema);
    expect(out).toBe(code`
      type Root = {
        b?: Root.B;
      } | Root.B;

      declare namespace Root {
        type B = unknown;
      }
    `);
  });

  test('definition names are made identifiers and never clash', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/Root' },
        b: { $ref: '#/$defs/class' },
        c: { $ref: '#/definitions/class' },
        d: { $ref: '#/$defs/a~1b%20c' },
        e: { $ref: '#/$defs/9lives' },
        f: { $ref: '#/$defs/a_b_c' },
      },
      $defs: { Root: { type: 'string' }, class: { type: 'number' }, 'a/b c': { type: 'boolean' }, '9lives': {}, a_b_c: {} },
      definitions: { class: { type: 'null' } },
    };
    expect(render(schema)).toBe(code`
      type Root = {
        a?: Root.Root2;
        b?: Root.class_;
        c?: Root.class_2;
        d?: Root.a_b_c;
        e?: Root._9lives;
        f?: Root.a_b_c2;
      };

      declare namespace Root {
        type Root2 = string;

        type _9lives = unknown;

        type a_b_c = boolean;

        type a_b_c2 = unknown;

        type class_ = number;

        type class_2 = null;
      }
    `);
  });

  test.each([
    ['https://example.com/schema.json'],
    ['other.json#/$defs/A'],
    ['#/properties/a'],
    ['#/$defs/Missing'],
    ['#/$defs/A/properties/x'],
    ['#/$defs/%E0%A4%A'],
    ['#anchor'],
  ])('%s → unknown', (ref) => {
    const schema = { $ref: ref, $defs: { A: { type: 'object', properties: { x: { type: 'string' } } } } };
    rendered.push(schema);
    expect(typeOf(schema)).toBe('unknown');
  });

  test('$ref intersects with sibling keywords and ignores a bare object type', () => {
    const schema = {
      type: 'object',
      $ref: '#/$defs/A',
      $defs: { A: { type: 'object', properties: { x: { type: 'string' } } } },
    };
    expect(render(schema).split('\n')[0]).toBe('type Root = Root.A;');
    const narrowed = { $ref: '#/$defs/S', enum: ['a'], $defs: { S: { type: 'string' } } };
    expect(render(narrowed).split('\n')[0]).toBe('type Root = "a" & Root.S;');
  });

  test('renderSchemaType lets the caller name and spell helpers', () => {
    const schema = { type: 'array', items: { $ref: '#/$defs/Item' }, $defs: { Item: { $ref: '#' } } };
    const out = renderSchemaType(schema, {
      rootRef: 'Items',
      nameHelper: (key) => `Items_${key}`,
    });
    expect(out).toEqual({
      type: 'Items_Item[]',
      helpers: [{ name: 'Items_Item', text: 'type Items_Item = Items;' }],
      rootReferenced: true,
    });
  });
});

describe('JSDoc', () => {
  test('descriptions cannot close the comment or break it with any line terminator', () => {
    const schema = {
      description: 'Ends */ here\r\nsecond\u2028third\u2029fourth\rfifth\u0007bell\n\n  indented',
      type: 'object',
      properties: {
        p: { type: 'string', description: '   one line */   ' },
        q: { type: 'string', description: '\n  \n' },
        r: { type: 'string', description: 42 },
        s: { type: 'string', description: '**/*/ /*' },
      },
    };
    expect(render(schema)).toBe(code`
      /**
       * Ends *\/ here
       * second
       * third
       * fourth
       * fifth bell
       *
       *   indented
       */
      type Root = {
        /** one line *\/ */
        p?: string;
        q?: string;
        r?: string;
        /** **\/*\/ /* */
        s?: string;
      };
    `);
  });

  test('shared indentation is removed from multi-line descriptions', () => {
    const schema = { description: '\n    First.\n      Indented.\n    Last.\n', type: 'string' };
    expect(render(schema)).toBe(code`
      /**
       * First.
       *   Indented.
       * Last.
       */
      type Root = string;
    `);
  });
});

describe('degrading', () => {
  test.each([
    [{ not: { type: 'string' } }],
    [{ if: { type: 'string' }, then: { minLength: 1 }, else: { type: 'number' } }],
    [{ type: 'date' }],
    [{ type: [] }],
    [{ type: ['string', 7] }],
    [{ type: 42 }],
    [42],
    ['string'],
    [null],
    [[{ type: 'string' }]],
    [{ anyOf: 'nope', allOf: { type: 'string' } }],
    [{ $ref: 42 }],
    [{ enum: [Symbol('s')] }],
    [{ enum: [1n] }],
    [{ const: () => 1 }],
  ])('#%# → unknown', (schema) => {
    rendered.push(schema);
    expect(typeOf(schema)).toBe('unknown');
  });

  test(`nesting deeper than ${MAX_SCHEMA_DEPTH} levels becomes unknown`, () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5_000; i++) schema = { type: 'array', items: schema };
    const type = typeOf(schema);
    expect(type).toBe(`unknown${'[]'.repeat(MAX_SCHEMA_DEPTH + 1)}`);
    rendered.push(schema);
  });

  test('a name that cannot name a type is a CONFIG error', () => {
    for (const name of ['my-type', 'class', 'string', '', '1A', 'Ä']) {
      expect(() => jsonSchemaToTs({}, { name })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    }
  });
});

/** Inputs no tool author should write; each must give valid TypeScript without throwing. */
function nastySchemas(): Array<[string, unknown]> {
  const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  const throwing = new Proxy({}, {
    get() { throw new Error('boom'); },
    ownKeys() { throw new Error('boom'); },
    has() { throw new Error('boom'); },
    getOwnPropertyDescriptor() { throw new Error('boom'); },
  });
  const getter = { type: 'object', get properties(): never { throw new Error('boom'); } };
  const sparse: unknown[] = [];
  sparse.length = 1e9;
  const wide: Record<string, unknown> = {};
  for (let i = 0; i < 3_000; i++) wide[`p${i}`] = { anyOf: [{ type: 'string' }, { $ref: '#/$defs/D' }] };
  let shared: unknown = { type: 'string' };
  for (let i = 0; i < 60; i++) shared = { anyOf: [shared, shared] };
  let deepAnyOf: unknown = { type: 'string' };
  for (let i = 0; i < 10_000; i++) deepAnyOf = { anyOf: [deepAnyOf] };
  const defChain: Record<string, unknown> = {};
  for (let i = 0; i < 2_000; i++) defChain[`D${i}`] = { $ref: `#/$defs/D${i + 1}` };
  defChain.D2000 = { $ref: '#/$defs/D0' };
  const unionChain: Record<string, unknown> = {};
  const objectChain: Record<string, unknown> = {};
  for (let i = 0; i < 2_000; i++) {
    unionChain[`D${i}`] = { anyOf: [{ $ref: `#/$defs/D${i + 1}` }, { const: i }] };
    objectChain[`D${i}`] = { type: 'object', properties: { next: { type: 'array', items: { $ref: `#/$defs/D${i + 1}` } } } };
  }
  return [
    ['cyclic JS object', cyclic],
    ['throwing proxy', throwing],
    ['throwing proxy as properties', { type: 'object', properties: throwing, required: throwing }],
    ['throwing getter', getter],
    ['sparse huge enum', { enum: sparse }],
    ['sparse huge anyOf', { anyOf: sparse }],
    ['null-prototype schema', Object.assign(Object.create(null) as object, { type: 'string' })],
    ['__proto__ keys', JSON.parse('{"__proto__":{"type":"string"},"properties":{"__proto__":{"__proto__":1}}}')],
    ['wide object', { type: 'object', properties: wide, $defs: { D: { type: 'number' } } }],
    ['shared subschemas (exponential if expanded)', shared],
    ['deep anyOf', deepAnyOf],
    ['long $defs cycle', { $ref: '#/$defs/D0', $defs: defChain }],
    ['long chain of direct references', { $ref: '#/$defs/D0', $defs: unionChain }],
    ['long chain of references through members', { $ref: '#/$defs/D0', $defs: objectChain }],
    ['hostile keys everywhere', {
      type: 'object',
      properties: { '*/': { description: '*/ */', enum: ['*/', '\u2029', '\ud800'] }, '\\': { const: '\\' } },
      additionalProperties: { description: '/*', type: 'string' },
    }],
    ['index signature over multi-line members', {
      type: 'object',
      properties: { o: { type: 'object', properties: { x: { type: 'string' } } } },
      additionalProperties: { type: 'number' },
    }],
    ['garbage everywhere', {
      type: 'object',
      properties: { a: 1, b: [], c: null, d: 'x', e: { items: 3, prefixItems: {} }, f: { type: 'array', prefixItems: [1], minItems: -5 } },
      required: 'a',
      additionalProperties: 7,
      $defs: 5,
    }],
    ['numbers at the edges', { enum: [Number.MAX_VALUE, Number.MIN_VALUE, -0, 1e21, -1e-7, NaN, Infinity] }],
    ['self-referencing defs in every position', {
      $defs: { A: { allOf: [{ $ref: '#/$defs/A' }, { type: 'object', properties: { a: { $ref: '#/$defs/A' } } }] } },
      anyOf: [{ $ref: '#/$defs/A' }, { type: 'array', prefixItems: [{ $ref: '#' }], items: { $ref: '#' } }],
    }],
  ];
}

describe('never crashes, always compiles', () => {
  test.each(nastySchemas())('%s', (_label, schema) => {
    const out = jsonSchemaToTs(schema as JsonSchema);
    expect(out).toMatch(/^(\/\*\*[\s\S]*?\*\/\n)?type Root = /);
    expect(compileTs({ 'out.ts': out }).diagnostics).toEqual([]);
  });

  test('output is deterministic', () => {
    for (const [, schema] of nastySchemas()) {
      expect(jsonSchemaToTs(schema as JsonSchema)).toBe(jsonSchemaToTs(schema as JsonSchema));
    }
  });

  test('every type rendered in this file compiles, and two names never collide', () => {
    expect(rendered.length).toBeGreaterThan(50);
    const files: Record<string, string> = {};
    rendered.forEach((schema, i) => {
      // Same schema under two names in one global scope: helpers must not clash.
      files[`t${i}.ts`] = jsonSchemaToTs(schema as JsonSchema, { name: `T${i}` });
      files[`u${i}.ts`] = jsonSchemaToTs(schema as JsonSchema, { name: `T${i}_Node` });
    });
    expect(compileTs(files).diagnostics).toEqual([]);
  });

  test('the generated types are real types, not any', () => {
    const schema = {
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Node' } },
      required: ['tree'],
      $defs: {
        Node: {
          type: 'object',
          properties: { v: { type: 'number' }, kids: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['v', 'kids'],
        },
      },
    };
    const types = jsonSchemaToTs(schema, { name: 'Doc' });
    const good = 'const d: Doc = { tree: { v: 1, kids: [{ v: 2, kids: [] }] } };\n';
    expect(compileTs({ 'types.ts': types, 'use.ts': good }).diagnostics).toEqual([]);
    const bad = 'const d: Doc = { tree: { v: 1, kids: [{ v: "two", kids: [] }] } };\n';
    const { diagnostics } = compileTs({ 'types.ts': types, 'use.ts': bad });
    expect(diagnostics.join('\n')).toMatch(/use\.ts\(1,\d+\): TS2322: Type 'string' is not assignable to type 'number'/);
  });
});
