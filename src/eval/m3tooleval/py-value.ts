// Python values as the M3ToolEval originals see them: int (arbitrary precision) and float kept apart,
// tuples and sets apart from lists, dicts in insertion order. The tools render their results as
// Python's str() would, and the answer check (check-answer.ts) needs Python's ==, int(), float(),
// str() (ast.literal_eval is in python-literal.ts). docs/eval.md, "Tools".

export type PyValue =
  | { readonly t: 'int'; readonly v: bigint }
  | { readonly t: 'float'; readonly v: number }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'none' }
  | { readonly t: 'list' | 'tuple' | 'set'; readonly v: readonly PyValue[] }
  | { readonly t: 'dict'; readonly v: readonly (readonly [PyValue, PyValue])[] };

export const py = {
  int: (v: bigint | number): PyValue => ({ t: 'int', v: typeof v === 'bigint' ? v : BigInt(Math.trunc(v)) }),
  float: (v: number): PyValue => ({ t: 'float', v }),
  str: (v: string): PyValue => ({ t: 'str', v }),
  bool: (v: boolean): PyValue => ({ t: 'bool', v }),
  none: { t: 'none' } as PyValue,
  list: (v: readonly PyValue[]): PyValue => ({ t: 'list', v }),
  tuple: (v: readonly PyValue[]): PyValue => ({ t: 'tuple', v }),
  dict: (v: readonly (readonly [PyValue, PyValue])[]): PyValue => ({ t: 'dict', v }),
};

/** Python raised an exception of this class (the checker catches some and lets others through). */
export type PyErrorClass = 'ValueError' | 'TypeError' | 'OverflowError' | 'SyntaxError' | 'ZeroDivisionError';

export class PyError extends Error {
  readonly pyClass: PyErrorClass;
  constructor(pyClass: PyErrorClass, message: string) {
    super(`${pyClass}: ${message}`);
    this.pyClass = pyClass;
  }
}

/**
 * A JSON number as a Python value. JSON arguments arrive parsed, so `2.0` and `2` are the same
 * number here: an integral number counts as int (docs/eval.md names this the one approximation).
 */
export function pyNumber(n: number): PyValue {
  return Number.isInteger(n) && Number.isSafeInteger(n) ? py.int(n) : py.float(n);
}

/** A JSON value as Python would hold it after json.loads (objects become dicts, arrays lists). */
export function fromJson(value: unknown): PyValue {
  if (value === null || value === undefined) return py.none;
  if (typeof value === 'boolean') return py.bool(value);
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'string') return py.str(value);
  if (Array.isArray(value)) return py.list(value.map(fromJson));
  return py.dict(Object.entries(value as Record<string, unknown>).map(([k, v]) => [py.str(k), fromJson(v)] as const));
}

/** The JSON a tool hands a program for a Python value (tuples and sets become arrays, ints numbers). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function toJson(value: PyValue): Json {
  switch (value.t) {
    case 'int':
      return Number(value.v);
    case 'float':
    case 'str':
    case 'bool':
      return value.v;
    case 'none':
      return null;
    case 'list':
    case 'tuple':
    case 'set':
      return value.v.map(toJson);
    case 'dict': {
      const out: { [key: string]: Json } = {};
      for (const [k, v] of value.v) out[k.t === 'str' ? k.v : pyStr(k)] = toJson(v);
      return out;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// str() and repr()

/** Python's repr() of a float: the shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp >= 0) {
    const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${whole}.${frac === '' ? '0' : frac}`;
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}

/** Python's repr() of a str: single quotes unless the text has a ' and no ". */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

export function pyRepr(value: PyValue): string {
  switch (value.t) {
    case 'int':
      return value.v.toString();
    case 'float':
      return floatRepr(value.v);
    case 'str':
      return strRepr(value.v);
    case 'bool':
      return value.v ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'list':
      return `[${value.v.map(pyRepr).join(', ')}]`;
    case 'tuple':
      return value.v.length === 1 ? `(${pyRepr(value.v[0]!)},)` : `(${value.v.map(pyRepr).join(', ')})`;
    case 'set':
      return value.v.length === 0 ? 'set()' : `{${value.v.map(pyRepr).join(', ')}}`;
    case 'dict':
      return `{${value.v.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
}

/** Python's str(): a str as itself, everything else as repr. */
export function pyStr(value: PyValue): string {
  return value.t === 'str' ? value.v : pyRepr(value);
}

// ---------------------------------------------------------------------------------------------
// ==, int(), float()

/** A number's value for comparisons (bool is an int in Python). */
function numeric(value: PyValue): bigint | number | undefined {
  if (value.t === 'int') return value.v;
  if (value.t === 'float') return value.v;
  if (value.t === 'bool') return value.v ? 1n : 0n;
  return undefined;
}

function numbersEqual(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  const [i, f] = typeof a === 'bigint' ? [a, b as number] : [b as bigint, a];
  return Number.isInteger(f) && BigInt(f) === i;
}

/** Python's == (numbers across int/float/bool, containers element by element, dicts by key set). */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && numbersEqual(na, nb);
  if (a.t === 'str' || b.t === 'str') return a.t === 'str' && b.t === 'str' && a.v === b.v;
  if (a.t === 'none' || b.t === 'none') return a.t === b.t;
  if (a.t === 'dict' || b.t === 'dict') {
    if (a.t !== 'dict' || b.t !== 'dict' || a.v.length !== b.v.length) return false;
    return a.v.every(([k, v]) => b.v.some(([k2, v2]) => pyEquals(k, k2) && pyEquals(v, v2)));
  }
  if (a.t === 'set' || b.t === 'set') {
    if (a.t !== 'set' || b.t !== 'set' || a.v.length !== b.v.length) return false;
    return a.v.every((x) => b.v.some((y) => pyEquals(x, y)));
  }
  // list and tuple never compare equal to each other.
  if (a.t !== b.t) return false;
  const av = a.v as readonly PyValue[];
  const bv = b.v as readonly PyValue[];
  return av.length === bv.length && av.every((x, i) => pyEquals(x, bv[i]!));
}

const INT_TEXT = /^[+-]?\d(?:_?\d)*$/;
const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const FLOAT_WORD = /^[+-]?(?:inf|infinity|nan)$/i;

/** Python's int(s) for a str (ASCII digits; surrounding whitespace allowed); ValueError otherwise. */
export function intOfText(s: string): bigint {
  const text = s.trim();
  if (!INT_TEXT.test(text)) throw new PyError('ValueError', `invalid literal for int() with base 10: ${strRepr(s)}`);
  return BigInt(text.replaceAll('_', ''));
}

/** Python's float(s) for a str; ValueError otherwise. */
export function floatOfText(s: string): number {
  const text = s.trim();
  if (FLOAT_WORD.test(text)) {
    const negative = text.startsWith('-');
    return /nan/i.test(text) ? Number.NaN : negative ? -Infinity : Infinity;
  }
  if (!FLOAT_TEXT.test(text)) throw new PyError('ValueError', `could not convert string to float: ${strRepr(s)}`);
  return Number(text.replaceAll('_', ''));
}

/** Python's int(x). */
export function pyInt(value: PyValue): bigint {
  switch (value.t) {
    case 'int':
      return value.v;
    case 'bool':
      return value.v ? 1n : 0n;
    case 'float':
      if (Number.isNaN(value.v)) throw new PyError('ValueError', 'cannot convert float NaN to integer');
      if (!Number.isFinite(value.v)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
      return BigInt(Math.trunc(value.v));
    case 'str':
      return intOfText(value.v);
    default:
      throw new PyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`);
  }
}

/** Python's float(x). */
export function pyFloat(value: PyValue): number {
  switch (value.t) {
    case 'int':
      return Number(value.v);
    case 'bool':
      return value.v ? 1 : 0;
    case 'float':
      return value.v;
    case 'str':
      return floatOfText(value.v);
    default:
      throw new PyError('TypeError', `float() argument must be a string or a real number, not '${typeName(value)}'`);
  }
}

export function typeName(value: PyValue): string {
  return value.t === 'none' ? 'NoneType' : value.t;
}
