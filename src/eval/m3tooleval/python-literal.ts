// Python's ast.literal_eval, for answers (the check parses them), tool texts (the standard replay
// reads values back) and tasks.json (read as literals so 8100.0 stays a float). docs/eval.md.

import { py, PyError, pyEquals, type PyValue } from './py-value.js';

/**
 * Python's ast.literal_eval for the literals answers and tool outputs use: ints (decimal, 0x, 0o,
 * 0b), floats, strings (with r/b/u prefixes, escapes, implicit concatenation), True/False/None,
 * lists, tuples (also bare `a, b`), sets, dicts, unary +/- on numbers. Complex numbers and bytes
 * are refused. With `json`, true/false/null are accepted too, so JSON files parse with int/float
 * kept apart. Throws PyError('ValueError' | 'SyntaxError').
 */
export function literalEval(text: string, options: { json?: boolean } = {}): PyValue {
  const parser = new LiteralParser(text.replace(/^[ \t]+/, ''), options.json ?? false);
  return parser.parseTop();
}

class LiteralParser {
  private pos = 0;
  private readonly src: string;
  private readonly json: boolean;
  constructor(src: string, json: boolean) {
    this.src = src;
    this.json = json;
  }

  parseTop(): PyValue {
    this.skip();
    const first = this.parseValue();
    this.skip();
    if (this.peek() === ',') {
      const items = [first];
      while (this.peek() === ',') {
        this.pos++;
        this.skip();
        if (this.pos >= this.src.length) break;
        items.push(this.parseValue());
        this.skip();
      }
      this.expectEnd();
      return py.tuple(items);
    }
    this.expectEnd();
    return first;
  }

  private expectEnd(): void {
    this.skip();
    if (this.pos < this.src.length) this.fail('invalid syntax');
  }

  private fail(message: string): never {
    throw new PyError('SyntaxError', `${message} at position ${this.pos}`);
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private skip(): void {
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos]!;
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f') this.pos++;
      else if (ch === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else if (ch === '#') while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      else break;
    }
  }

  private parseValue(): PyValue {
    this.skip();
    const ch = this.peek();
    if (ch === undefined) this.fail('unexpected end of input');
    if (ch === '[') return py.list(this.parseSeq(']'));
    if (ch === '(') {
      this.pos++;
      this.skip();
      if (this.peek() === ')') {
        this.pos++;
        return py.tuple([]);
      }
      const first = this.parseValue();
      this.skip();
      if (this.peek() === ')') {
        this.pos++;
        return first;
      }
      const items = [first];
      while (this.peek() === ',') {
        this.pos++;
        this.skip();
        if (this.peek() === ')') break;
        items.push(this.parseValue());
        this.skip();
      }
      if (this.peek() !== ')') this.fail("expected ')'");
      this.pos++;
      return py.tuple(items);
    }
    if (ch === '{') return this.parseBrace();
    if (ch === '+' || ch === '-') {
      this.pos++;
      const operand = this.parseValue();
      if (operand.t === 'int') return py.int(ch === '-' ? -operand.v : operand.v);
      if (operand.t === 'float') return py.float(ch === '-' ? -operand.v : operand.v);
      if (operand.t === 'bool') return py.int(ch === '-' ? -(operand.v ? 1n : 0n) : operand.v ? 1n : 0n);
      throw new PyError('ValueError', 'malformed node or string: unary operator on a non-number');
    }
    if (/[0-9.]/.test(ch)) return this.parseNumber();
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.pos))?.[0];
    if (word !== undefined) {
      const next = this.src[this.pos + word.length];
      if ((next === "'" || next === '"') && /^(?:r|u|R|U|b|B|br|rb|Br|bR|BR|rB|Rb|RB)$/.test(word)) {
        return this.parseStrings();
      }
      this.pos += word.length;
      if (word === 'True' || (this.json && word === 'true')) return py.bool(true);
      if (word === 'False' || (this.json && word === 'false')) return py.bool(false);
      if (word === 'None' || (this.json && word === 'null')) return py.none;
      throw new PyError('ValueError', `malformed node or string: name ${word}`);
    }
    if (ch === "'" || ch === '"') return this.parseStrings();
    this.fail('invalid syntax');
  }

  private parseSeq(close: string): PyValue[] {
    this.pos++;
    const items: PyValue[] = [];
    this.skip();
    while (this.peek() !== close) {
      items.push(this.parseValue());
      this.skip();
      if (this.peek() === ',') {
        this.pos++;
        this.skip();
      } else if (this.peek() !== close) this.fail(`expected ',' or '${close}'`);
    }
    this.pos++;
    return items;
  }

  private parseBrace(): PyValue {
    this.pos++;
    this.skip();
    if (this.peek() === '}') {
      this.pos++;
      return py.dict([]);
    }
    const first = this.parseValue();
    this.skip();
    if (this.peek() === ':') {
      const entries: [PyValue, PyValue][] = [];
      let key = first;
      for (;;) {
        if (this.peek() !== ':') this.fail("expected ':'");
        this.pos++;
        const value = this.parseValue();
        const existing = entries.findIndex(([k]) => pyEquals(k, key));
        if (existing >= 0) entries[existing] = [entries[existing]![0], value];
        else entries.push([key, value]);
        this.skip();
        if (this.peek() === ',') {
          this.pos++;
          this.skip();
        } else if (this.peek() !== '}') this.fail("expected ',' or '}'");
        if (this.peek() === '}') break;
        if (this.pos >= this.src.length) this.fail("expected '}'");
        key = this.parseValue();
        this.skip();
      }
      this.pos++;
      return py.dict(entries);
    }
    const items = [first];
    while (this.peek() === ',') {
      this.pos++;
      this.skip();
      if (this.peek() === '}') break;
      const item = this.parseValue();
      if (!items.some((x) => pyEquals(x, item))) items.push(item);
      this.skip();
    }
    if (this.peek() !== '}') this.fail("expected '}'");
    this.pos++;
    return { t: 'set', v: items };
  }

  private parseNumber(): PyValue {
    const rest = this.src.slice(this.pos);
    const radix = /^0([xXoObB])([0-9a-fA-F_]+)/.exec(rest);
    if (radix) {
      this.pos += radix[0].length;
      const prefix = radix[1]!.toLowerCase();
      return py.int(BigInt(`0${prefix}${radix[2]!.replaceAll('_', '')}`));
    }
    const match = /^(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/.exec(rest)?.[0] ?? '';
    if (match === '' || match === '.') this.fail('invalid syntax');
    this.pos += match.length;
    if (/^[jJ]/.test(this.src.slice(this.pos))) throw new PyError('ValueError', 'complex numbers are not supported here');
    const clean = match.replaceAll('_', '');
    if (/[.eE]/.test(clean)) return py.float(Number(clean));
    if (/^0\d/.test(clean) && /[1-9]/.test(clean)) this.fail('leading zeros in decimal integer literals are not permitted');
    return py.int(BigInt(clean));
  }

  private parseStrings(): PyValue {
    let out = '';
    let any = false;
    for (;;) {
      this.skip();
      const prefix = /^(?:r|u|R|U|b|B|br|rb|Br|bR|BR|rB|Rb|RB)?(?=['"])/.exec(this.src.slice(this.pos))?.[0];
      if (prefix === undefined || this.pos >= this.src.length) break;
      if (/b/i.test(prefix)) throw new PyError('ValueError', 'bytes literals are not supported here');
      this.pos += prefix.length;
      out += this.parseOneString(/r/i.test(prefix));
      any = true;
    }
    if (!any) this.fail('expected a string');
    return py.str(out);
  }

  private parseOneString(raw: boolean): string {
    const quoteChar = this.src[this.pos]!;
    const triple = this.src.startsWith(quoteChar.repeat(3), this.pos);
    const quote = triple ? quoteChar.repeat(3) : quoteChar;
    this.pos += quote.length;
    let out = '';
    for (;;) {
      if (this.pos >= this.src.length) this.fail('unterminated string literal');
      if (this.src.startsWith(quote, this.pos)) {
        this.pos += quote.length;
        return out;
      }
      const ch = this.src[this.pos]!;
      if (!triple && ch === '\n') this.fail('unterminated string literal');
      if (ch !== '\\') {
        out += ch;
        this.pos++;
        continue;
      }
      const next = this.src[this.pos + 1];
      if (next === undefined) this.fail('unterminated string literal');
      if (raw) {
        out += ch + next;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
      if (next in simple) out += simple[next];
      else if (next === 'x' || next === 'u' || next === 'U') {
        const len = next === 'x' ? 2 : next === 'u' ? 4 : 8;
        const hex = this.src.slice(this.pos, this.pos + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.fail('truncated escape');
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        this.pos += len;
      } else if (/[0-7]/.test(next)) {
        const oct = /^[0-7]{0,2}/.exec(this.src.slice(this.pos))![0];
        out += String.fromCodePoint(Number.parseInt(next + oct, 8));
        this.pos += oct.length;
      } else if (this.json && next === '/') out += '/';
      else out += `\\${next}`;
    }
  }
}
