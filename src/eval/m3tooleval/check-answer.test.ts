// The answer check on its quirks. Expected verdicts come from Python 3.11: a script of our own
// re-stated the benchmark's check (the int-then-float conversion, literal_eval, the comparison that
// always raises because of its missing `or`, the final str() comparison) and ran it on the pairs
// in python-derived.json ("check": answer, repr of the expected value, verdict).

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAnswer, extractAnswer } from './check-answer.js';
import { floatRepr, pyStr } from './py-value.js';
import { literalEval } from './python-literal.js';
import { loadTasks } from './tasks.js';

const derived = JSON.parse(fs.readFileSync(new URL('./python-derived.json', import.meta.url), 'utf8')) as { check: [string, string, boolean][] };

describe('checkAnswer matches the original verdicts', () => {
  for (const [answer, expectedRepr, verdict] of derived.check) {
    it(`${JSON.stringify(answer)} vs ${expectedRepr} -> ${verdict}`, () => {
      expect(checkAnswer(answer, literalEval(expectedRepr))).toBe(verdict);
    });
  }
});

describe('the quirks, named', () => {
  it('int() truncates a float expected value: "161" passes for 161.25', () => {
    expect(checkAnswer('161', literalEval('161.25'))).toBe(true);
    expect(checkAnswer('162', literalEval('161.25'))).toBe(false);
  });

  it('a list is compared by str() only: its floats need their ".0"', () => {
    const expected = literalEval('[36380.0, 48150.0, 68480.0]');
    expect(checkAnswer('[36380.0, 48150.0, 68480.0]', expected)).toBe(true);
    expect(checkAnswer('[36380, 48150, 68480]', expected)).toBe(false);
  });

  it('the tuple expected of the combined-sequence task refuses ("A",3) while its JSON string would accept it', () => {
    const task = loadTasks().find((t) => t.name.endsWith('find_most_common_nucleotide_combined_sequence'))!;
    expect(task.expected.t).toBe('tuple');
    expect(checkAnswer("('A',3)", task.expected)).toBe(false);
    expect(checkAnswer("('A',3)", literalEval(`"('A', 3)"`))).toBe(true);
  });

  it('keeps 8100.0 a float and 3 an int when reading tasks.json', () => {
    const byName = new Map(loadTasks().map((t) => [t.name, t.expected]));
    expect(byName.get('trade_calculator/interstellar_trade_transaction')).toEqual({ t: 'float', v: 8100 });
    expect(byName.get('message_decoder/shortest_caesar_decoded_message')).toEqual({ t: 'int', v: 3n });
    expect(pyStr(byName.get('cryptobotanists_plant_dna_sequencer/reverse_transcribe_palindrome_check')!)).toBe("{'T': 1, 'A': 2, 'C': 2, 'G': 1}");
    expect(loadTasks()).toHaveLength(82);
  });
});

describe('Python float repr', () => {
  it.each([
    [8100, '8100.0'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e16, '1e+16'],
    [1234567890123456.7, '1234567890123456.8'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e-7, '-2.5e-07'],
    [1e22, '1e+22'],
    [123.456, '123.456'],
  ])('%d -> %s', (x, text) => {
    expect(floatRepr(x)).toBe(text);
  });
});

describe('extractAnswer', () => {
  it('takes the text after the first "Answer:", up to a second one, stripped', () => {
    expect(extractAnswer('Thought: done.\nAnswer: 42 ')).toBe('42');
    expect(extractAnswer('Answer: 1\nAnswer: 2')).toBe('1');
    expect(extractAnswer('  42\n')).toBe('42');
  });
});
