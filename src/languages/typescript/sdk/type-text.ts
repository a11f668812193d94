// TypeScript type expressions as text, with how tightly each binds: the algebra the schema
// renderer (schema-renderer.ts) builds types with. A union absorbs `unknown`, an intersection
// absorbs `never`, members are flattened and deduplicated, parentheses are added only where the
// binding needs them.

/** A rendered type and how tightly it binds, to know where parentheses are needed. */
export interface TypeText {
  readonly text: string;
  /** 0: union, 1: intersection or prefixed (`-1`), 2: primary. */
  readonly prec: 0 | 1 | 2;
  /** Flattened members when this is a union or an intersection. */
  readonly members?: readonly string[];
}

export const UNKNOWN: TypeText = { text: 'unknown', prec: 2 };
export const NEVER: TypeText = { text: 'never', prec: 2 };
export const NULL: TypeText = { text: 'null', prec: 2 };
export const PRIMITIVES: Readonly<Record<string, TypeText>> = {
  string: { text: 'string', prec: 2 },
  number: { text: 'number', prec: 2 },
  integer: { text: 'number', prec: 2 },
  boolean: { text: 'boolean', prec: 2 },
  null: NULL,
};

export function parenthesize(t: TypeText, minPrec: 0 | 1 | 2): string {
  return t.prec < minPrec ? `(${t.text})` : t.text;
}

/** A union: `unknown` absorbs everything, `never` members vanish, duplicates are dropped. */
export function union(types: readonly TypeText[]): TypeText {
  const members = new Set<string>();
  for (const t of types) {
    if (t.text === 'unknown') return UNKNOWN;
    if (t.text === 'never') continue;
    for (const m of t.prec === 0 && t.members ? t.members : [t.text]) members.add(m);
  }
  if (members.size === 0) return NEVER;
  const list = [...members];
  if (list.length === 1) return types.find((t) => t.text === list[0]) ?? { text: list[0]!, prec: 2 };
  return { text: list.join(' | '), prec: 0, members: list };
}

/** An intersection: `unknown` members vanish, `never` absorbs everything, duplicates are dropped. */
export function intersection(types: readonly TypeText[]): TypeText {
  const members = new Set<string>();
  let first: TypeText | undefined;
  for (const t of types) {
    if (t.text === 'never') return NEVER;
    if (t.text === 'unknown') continue;
    for (const m of t.prec === 1 && t.members ? t.members : [parenthesize(t, 1)]) members.add(m);
    first ??= t;
  }
  if (members.size === 0 || !first) return UNKNOWN;
  if (members.size === 1) return first;
  const list = [...members];
  return { text: list.join(' & '), prec: 1, members: list };
}
