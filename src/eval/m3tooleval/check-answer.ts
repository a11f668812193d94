// The benchmark's own answer check, quirks included (docs/eval.md, "The answer check"). The original
// compares a model's answer string with the expected Python value in three tries:
//   1. answer == expected, or convert(answer) == convert(expected), where convert tries int(), then
//      float(), and keeps the value when both raise ValueError. int() of a float expected value
//      truncates it, so "161" matches 161.25; int() of a list, dict or None raises TypeError, which
//      is not caught there and skips straight to step 3 with the raw answer string.
//   2. answer = literal_eval(answer), then a comparison whose missing `or` turns it into a call of
//      the expected value, which always raises TypeError: this step never succeeds, it only
//      replaces the answer by its parsed literal.
//   3. str(answer) == str(expected).

import { intOfText, floatOfText, py, pyEquals, pyInt, pyStr, PyError, type PyValue } from './py-value.js';
import { literalEval } from './python-literal.js';

/** The original's _try_to_convert_to_correct_type: int(), then float(), else the value itself. */
function convert(value: PyValue): PyValue {
  try {
    return value.t === 'str' ? py.int(intOfText(value.v)) : py.int(pyInt(value));
  } catch (error) {
    if (!(error instanceof PyError) || error.pyClass !== 'ValueError') throw error;
  }
  try {
    // float() of a float NaN (int() refused it with ValueError) is the NaN itself.
    return value.t === 'str' ? py.float(floatOfText(value.v)) : value;
  } catch (error) {
    if (!(error instanceof PyError) || error.pyClass !== 'ValueError') throw error;
    return value;
  }
}

/** True when the benchmark counts `answer` (the text after "Answer:") as correct for `expected`. */
export function checkAnswer(answer: string, expected: PyValue): boolean {
  let current: PyValue = py.str(answer);
  try {
    if (pyEquals(current, expected) || pyEquals(convert(current), convert(expected))) return true;
    current = literalEval(answer);
    // The original's next comparison calls the expected value (a missing `or`): always TypeError.
  } catch {
    // Every exception of the two tries above lands here, as in the original's bare `except`.
  }
  return pyStr(current) === pyStr(expected);
}

/**
 * The answer in a final message, as the original's parse_generation takes it: the text after the
 * first "Answer:" (up to a second one, when there are several), stripped. A final message without
 * "Answer:" counts as a whole: our loop ends when the model stops calling tools, so there is no
 * later turn to ask again (docs/eval.md).
 */
export function extractAnswer(text: string): string {
  const marker = 'Answer:';
  const parts = text.split(marker);
  if (parts.length === 1) return text.trim();
  return parts[1]!.trim();
}
