// The `calculator` tool's evaluator. The original passes the expression to Python's eval(); here a
// small parser evaluates the arithmetic subset with Python's semantics (int/float, `/` vs `//`, `%`
// with the divisor's sign, right-associative `**` binding tighter than unary minus) plus the
// builtins abs, round, min, max, sum, pow, int and float. Anything else — names, attribute access,
// strings, comparisons — fails as the original's eval failure does. docs/eval.md.

import { add, asNum, extreme, floorDiv, mod, mul, neg, pow, sub, trueDiv, type PyNum } from './py-arith.js';
import { py, PyError, pyFloat, pyInt, type PyValue } from './py-value.js';

type Token = { kind: 'num'; value: PyNum } | { kind: 'name'; value: string } | { kind: 'op'; value: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const rest = src.slice(i);
    const number = /^(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/.exec(rest)?.[0];
    if (number) {
      const clean = number.replaceAll('_', '');
      if (/^0\d/.test(clean) && !/[.eE]/.test(clean) && /[1-9]/.test(clean)) throw new PyError('SyntaxError', 'leading zeros');
      tokens.push({ kind: 'num', value: /[.eE]/.test(clean) ? { t: 'float', v: Number(clean) } : { t: 'int', v: BigInt(clean) } });
      i += number.length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest)?.[0];
    if (name) {
      tokens.push({ kind: 'name', value: name });
      i += name.length;
      continue;
    }
    const op = /^(?:\*\*|\/\/|[-+*/%(),[\]])/.exec(rest)?.[0];
    if (!op) throw new PyError('SyntaxError', `unexpected character ${ch}`);
    tokens.push({ kind: 'op', value: op });
    i += op.length;
  }
  return tokens;
}

type Value = PyValue;

class ExpressionParser {
  private pos = 0;
  private readonly tokens: Token[];
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  parse(): Value {
    const value = this.expression();
    if (this.pos < this.tokens.length) throw new PyError('SyntaxError', 'invalid syntax');
    return value;
  }

  private peekOp(...ops: string[]): string | undefined {
    const t = this.tokens[this.pos];
    return t?.kind === 'op' && ops.includes(t.value) ? t.value : undefined;
  }

  private expect(op: string): void {
    if (!this.peekOp(op)) throw new PyError('SyntaxError', `expected ${op}`);
    this.pos++;
  }

  /** A bare `a, b` at the top or inside parentheses is a tuple. */
  private expression(): Value {
    const first = this.arith();
    if (!this.peekOp(',')) return first;
    const items = [first];
    while (this.peekOp(',')) {
      this.pos++;
      if (this.pos >= this.tokens.length || this.peekOp(')')) break;
      items.push(this.arith());
    }
    return py.tuple(items);
  }

  private arith(): Value {
    let left = this.term();
    for (let op = this.peekOp('+', '-'); op; op = this.peekOp('+', '-')) {
      this.pos++;
      const right = this.term();
      left = op === '+' ? add(asNum(left, '+'), asNum(right, '+')) : sub(asNum(left, '-'), asNum(right, '-'));
    }
    return left;
  }

  private term(): Value {
    let left = this.factor();
    for (let op = this.peekOp('*', '/', '//', '%'); op; op = this.peekOp('*', '/', '//', '%')) {
      this.pos++;
      const a = asNum(left, op);
      const b = asNum(this.factor(), op);
      left = op === '*' ? mul(a, b) : op === '/' ? trueDiv(a, b) : op === '//' ? floorDiv(a, b) : mod(a, b);
    }
    return left;
  }

  private factor(): Value {
    const op = this.peekOp('+', '-');
    if (op) {
      this.pos++;
      const operand = asNum(this.factor(), `unary ${op}`);
      return op === '-' ? neg(operand) : operand;
    }
    return this.power();
  }

  private power(): Value {
    const base = this.atom();
    if (!this.peekOp('**')) return base;
    this.pos++;
    return pow(asNum(base, '**'), asNum(this.factor(), '**'));
  }

  private atom(): Value {
    const t = this.tokens[this.pos];
    if (!t) throw new PyError('SyntaxError', 'unexpected end of expression');
    if (t.kind === 'num') {
      this.pos++;
      return t.value;
    }
    if (t.kind === 'name') {
      this.pos++;
      if (!this.peekOp('(')) throw new PyError('ValueError', `name '${t.value}' is not available`);
      this.pos++;
      const args: Value[] = [];
      while (!this.peekOp(')')) {
        args.push(this.arith());
        if (!this.peekOp(',')) break;
        this.pos++;
      }
      this.expect(')');
      return callBuiltin(t.value, args);
    }
    if (t.value === '(') {
      this.pos++;
      if (this.peekOp(')')) {
        this.pos++;
        return py.tuple([]);
      }
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (t.value === '[') {
      this.pos++;
      const items: Value[] = [];
      while (!this.peekOp(']')) {
        items.push(this.arith());
        if (!this.peekOp(',')) break;
        this.pos++;
      }
      this.expect(']');
      return py.list(items);
    }
    throw new PyError('SyntaxError', 'invalid syntax');
  }
}

/** One argument that is a list or tuple is iterated, as min/max/sum do. */
function iterated(args: readonly Value[], name: string): readonly Value[] {
  if (args.length === 1) {
    const only = args[0]!;
    if (only.t === 'list' || only.t === 'tuple') return only.v;
    throw new PyError('TypeError', `'${only.t}' object is not iterable (${name})`);
  }
  return args;
}

/** Python's round(): half to even; with ndigits a float rounded at that many decimals. */
function round(x: PyNum, ndigits: PyNum | undefined): PyNum {
  if (ndigits === undefined) {
    if (x.t === 'int') return x;
    if (!Number.isFinite(x.v)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
    const floor = Math.floor(x.v);
    const diff = x.v - floor;
    const rounded = diff > 0.5 ? floor + 1 : diff < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
    return { t: 'int', v: BigInt(rounded) };
  }
  const digits = Number(pyInt(ndigits));
  if (x.t === 'int') return x;
  if (digits < 0 || digits > 100) return { t: 'float', v: x.v };
  return { t: 'float', v: Number(x.v.toFixed(digits)) };
}

function callBuiltin(name: string, args: readonly Value[]): Value {
  switch (name) {
    case 'abs': {
      const x = asNum(args[0] ?? py.none, 'abs');
      return x.t === 'int' ? { t: 'int', v: x.v < 0n ? -x.v : x.v } : { t: 'float', v: Math.abs(x.v) };
    }
    case 'round':
      return round(asNum(args[0] ?? py.none, 'round'), args[1] === undefined ? undefined : asNum(args[1], 'round'));
    case 'min':
    case 'max':
      return extreme(iterated(args, name), name);
    case 'sum':
      return iterated(args.slice(0, 1), name).reduce<PyNum>((acc, v) => add(acc, asNum(v, '+')), args[1] ? asNum(args[1], '+') : { t: 'int', v: 0n });
    case 'pow':
      return pow(asNum(args[0] ?? py.none, 'pow'), asNum(args[1] ?? py.none, 'pow'));
    case 'int':
      return { t: 'int', v: pyInt(args[0] ?? { t: 'int', v: 0n }) };
    case 'float':
      return { t: 'float', v: pyFloat(args[0] ?? { t: 'int', v: 0n }) };
    default:
      throw new PyError('ValueError', `name '${name}' is not available`);
  }
}

/** Evaluates a calculator expression; throws PyError where Python's eval would raise. */
export function evaluateExpression(expression: string): PyValue {
  return new ExpressionParser(tokenize(expression)).parse();
}
