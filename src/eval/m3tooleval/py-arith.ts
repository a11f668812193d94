// Python arithmetic on int/float values, for the tools that compute (the trade and travel tools and
// the calculator): int op int stays an exact int, anything with a float is a float, `/` is always a
// float. Errors are the Python exception classes the originals would raise. docs/eval.md.

import { PyError, type PyValue } from './py-value.js';
import { MAX_INT_EXPONENT } from '../limits.js';

export type PyNum = Extract<PyValue, { t: 'int' | 'float' }>;

/** bool counts as int in arithmetic, as in Python. */
export function asNum(value: PyValue, op: string): PyNum {
  if (value.t === 'int' || value.t === 'float') return value;
  if (value.t === 'bool') return { t: 'int', v: value.v ? 1n : 0n };
  throw new PyError('TypeError', `unsupported operand type for ${op}: '${value.t === 'none' ? 'NoneType' : value.t}'`);
}

function f(n: PyNum): number {
  return n.t === 'int' ? Number(n.v) : n.v;
}

export function add(a: PyNum, b: PyNum): PyNum {
  return a.t === 'int' && b.t === 'int' ? { t: 'int', v: a.v + b.v } : { t: 'float', v: f(a) + f(b) };
}

export function sub(a: PyNum, b: PyNum): PyNum {
  return a.t === 'int' && b.t === 'int' ? { t: 'int', v: a.v - b.v } : { t: 'float', v: f(a) - f(b) };
}

export function mul(a: PyNum, b: PyNum): PyNum {
  return a.t === 'int' && b.t === 'int' ? { t: 'int', v: a.v * b.v } : { t: 'float', v: f(a) * f(b) };
}

export function trueDiv(a: PyNum, b: PyNum): PyNum {
  if (f(b) === 0) throw new PyError('ZeroDivisionError', 'division by zero');
  return { t: 'float', v: f(a) / f(b) };
}

export function floorDiv(a: PyNum, b: PyNum): PyNum {
  if (f(b) === 0) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  if (a.t === 'int' && b.t === 'int') {
    const q = a.v / b.v;
    return { t: 'int', v: (a.v % b.v !== 0n && (a.v < 0n) !== (b.v < 0n)) ? q - 1n : q };
  }
  return { t: 'float', v: Math.floor(f(a) / f(b)) };
}

export function mod(a: PyNum, b: PyNum): PyNum {
  if (f(b) === 0) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  if (a.t === 'int' && b.t === 'int') {
    const r = a.v % b.v;
    return { t: 'int', v: r !== 0n && (r < 0n) !== (b.v < 0n) ? r + b.v : r };
  }
  const x = f(a);
  const y = f(b);
  let r = x % y;
  if (r !== 0 && (r < 0) !== (y < 0)) r += y;
  return { t: 'float', v: r };
}


export function pow(a: PyNum, b: PyNum): PyNum {
  if (a.t === 'int' && b.t === 'int' && b.v >= 0n) {
    if (b.v > MAX_INT_EXPONENT) throw new PyError('OverflowError', 'exponent too large for this calculator');
    return { t: 'int', v: a.v ** b.v };
  }
  const x = f(a);
  const y = f(b);
  if (x === 0 && y < 0) throw new PyError('ZeroDivisionError', '0.0 cannot be raised to a negative power');
  // A negative base with a fractional exponent is a complex number in Python.
  if (x < 0 && !Number.isInteger(y)) throw new PyError('ValueError', 'complex result');
  const r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw new PyError('OverflowError', 'Numerical result out of range');
  return { t: 'float', v: r };
}

export function neg(a: PyNum): PyNum {
  return a.t === 'int' ? { t: 'int', v: -a.v } : { t: 'float', v: -a.v };
}

/** Python's < between two values min()/max() compare (numbers, or strings by code point). */
export function lessThan(a: PyValue, b: PyValue): boolean {
  if (a.t === 'str' && b.t === 'str') return compareCodePoints(a.v, b.v) < 0;
  if ((a.t === 'int' || a.t === 'float' || a.t === 'bool') && (b.t === 'int' || b.t === 'float' || b.t === 'bool')) {
    const x = asNum(a, '<');
    const y = asNum(b, '<');
    if (x.t === 'int' && y.t === 'int') return x.v < y.v;
    return f(x) < f(y);
  }
  throw new PyError('TypeError', `'<' not supported between instances of '${a.t}' and '${b.t}'`);
}

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Python's min(*args) / max(*args) over at least one value: the first extreme one wins. */
export function extreme(values: readonly PyValue[], which: 'min' | 'max'): PyValue {
  if (values.length === 0) throw new PyError('ValueError', `${which}() arg is an empty sequence`);
  let best = values[0]!;
  for (const v of values.slice(1)) {
    if (which === 'min' ? lessThan(v, best) : lessThan(best, v)) best = v;
  }
  return best;
}
