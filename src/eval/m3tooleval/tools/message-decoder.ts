// message_decoder: hex to text, reversing, Caesar decoding, lengths, min/max (docs/eval.md, "Tools").

import { z } from 'zod';
import { extreme } from '../py-arith.js';
import { fromJson, py, PyError, pyInt } from '../py-value.js';
import { pyTool } from '../tool-kit.js';

const scalar = z.union([z.number(), z.string()]);

/** bytes.fromhex(s).decode('utf-8'): whitespace between byte pairs is skipped; strict UTF-8. */
export function hexToText(hex: string): string {
  const bytes: number[] = [];
  let i = 0;
  while (i < hex.length) {
    if (/\s/.test(hex[i]!) && hex.charCodeAt(i) < 128) {
      i++;
      continue;
    }
    const pair = hex.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw new PyError('ValueError', `non-hexadecimal number found in fromhex() arg at position ${i}`);
    bytes.push(Number.parseInt(pair, 16));
    i += 2;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
  } catch {
    throw new PyError('ValueError', "'utf-8' codec can't decode the bytes");
  }
}

/**
 * The original shifts each character that Python calls upper or lower case within A-Z / a-z
 * (with Python's floored modulo), and keeps the rest. Case follows Unicode letter categories.
 */
export function caesarDecode(message: string, shift: bigint): string {
  let out = '';
  for (const ch of message) {
    const code = BigInt(ch.codePointAt(0)!);
    const base = /\p{Lu}/u.test(ch) ? 65n : /\p{Ll}/u.test(ch) ? 97n : undefined;
    if (base === undefined) {
      out += ch;
      continue;
    }
    const offset = (((code - shift - base) % 26n) + 26n) % 26n;
    out += String.fromCodePoint(Number(offset + base));
  }
  return out;
}

export function messageDecoderTools() {
  return [
    pyTool({
      name: 'convert_hex_to_ascii',
      description: 'Converts a hexadecimal string to ASCII. Arguments: hex_string (str)',
      input: z.object({ hex_string: z.string() }),
      output: z.string(),
      examples: [{ hex_string: '48656c6c6f' }],
      positional: (a) => [py.str(a.hex_string)],
      run: (a) => py.str(hexToText(a.hex_string)),
    }),
    pyTool({
      name: 'reverse_string',
      description: 'Reverses a string. Arguments: string (str)',
      input: z.object({ string: z.string() }),
      output: z.string(),
      positional: (a) => [py.str(a.string)],
      run: (a) => py.str(Array.from(a.string).reverse().join('')),
    }),
    pyTool({
      name: 'caesar_decode',
      description: 'Decodes a string using the Caesar cipher. Arguments: message (str), shift (int)',
      input: z.object({ message: z.string(), shift: scalar }),
      output: z.string(),
      positional: (a) => [py.str(a.message), fromJson(a.shift)],
      run: (a) => py.str(caesarDecode(a.message, pyInt(fromJson(a.shift)))),
    }),
    pyTool({
      name: 'string_length',
      description: 'Finds the length of a string. Arguments: string (str)',
      input: z.object({ string: z.string() }),
      output: z.number().int(),
      positional: (a) => [py.str(a.string)],
      run: (a) => py.int(Array.from(a.string).length),
    }),
    pyTool({
      name: 'minimum_value',
      description: 'Finds the minimum value from given arguments. Arguments: *args (variable number of arguments)',
      input: z.object({ args: z.array(scalar).describe('The values (*args).') }),
      output: scalar,
      positional: (a) => a.args.map(fromJson),
      run: (a) => extreme(a.args.map(fromJson), 'min'),
    }),
    pyTool({
      name: 'maximum_value',
      description: 'Finds the maximum value from given arguments. Arguments: *args (variable number of arguments)',
      input: z.object({ args: z.array(scalar).describe('The values (*args).') }),
      output: scalar,
      positional: (a) => a.args.map(fromJson),
      run: (a) => extreme(a.args.map(fromJson), 'max'),
    }),
  ];
}
