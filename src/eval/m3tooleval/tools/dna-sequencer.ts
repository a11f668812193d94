// cryptobotanists_plant_dna_sequencer: counting, transcription, translation, validation
// (docs/eval.md, "Tools").

import { z } from 'zod';
import { lessThan } from '../py-arith.js';
import { fromJson, py, PyError, pyEquals, type PyValue } from '../py-value.js';
import { pyTool } from '../tool-kit.js';

const scalar = z.union([z.number(), z.string()]);

/** dict(Counter(s)): characters in order of first appearance. */
export function countNucleotides(sequence: string): PyValue {
  const counts = new Map<string, number>();
  for (const ch of sequence) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  return py.dict([...counts].map(([k, v]) => [py.str(k), py.int(v)] as const));
}

function translateChars(text: string, from: string, to: string): string {
  return Array.from(text, (ch) => {
    const i = from.indexOf(ch);
    return i >= 0 ? to[i]! : ch;
  }).join('');
}

const CODONS: Readonly<Record<string, string>> = { AUG: 'Methionine', UUU: 'Phenylalanine', UUC: 'Phenylalanine' };

export function translateMrna(mrna: string): string {
  const chars = Array.from(mrna);
  const acids: string[] = [];
  for (let i = 0; i < chars.length; i += 3) acids.push(CODONS[chars.slice(i, i + 3).join('')] ?? 'X');
  return acids.join('-');
}

/** dict(zip(args[::2], args[1::2])), then the first key with the largest count, as a (key, count) tuple. */
export function findMaxNucleotide(args: readonly PyValue[]): PyValue {
  const entries: [PyValue, PyValue][] = [];
  for (let i = 0; i + 1 < args.length; i += 2) {
    const key = args[i]!;
    const existing = entries.findIndex(([k]) => pyEquals(k, key));
    if (existing >= 0) entries[existing] = [entries[existing]![0], args[i + 1]!];
    else entries.push([key, args[i + 1]!]);
  }
  if (entries.length === 0) throw new PyError('ValueError', 'max() arg is an empty sequence');
  let best = entries[0]!;
  for (const entry of entries.slice(1)) if (lessThan(best[1], entry[1])) best = entry;
  return py.tuple([best[0], best[1]]);
}

export function dnaSequencerTools() {
  const sequence = z.object({ dna_sequence: z.string() });
  const mrna = z.object({ mrna_sequence: z.string() });
  return [
    pyTool({
      name: 'count_nucleotides',
      description: 'Counts the occurrences of each nucleotide in a DNA sequence. Arguments: dna_sequence (str)',
      input: sequence,
      output: z.record(z.string(), z.number().int()),
      examples: [{ dna_sequence: 'AGCT' }],
      positional: (a) => [py.str(a.dna_sequence)],
      run: (a) => countNucleotides(a.dna_sequence),
    }),
    pyTool({
      name: 'transcribe_dna_to_mrna',
      description: 'Transcribes DNA sequence to mRNA. Arguments: dna_sequence (str)',
      input: sequence,
      output: z.string(),
      positional: (a) => [py.str(a.dna_sequence)],
      run: (a) => py.str(translateChars(a.dna_sequence, 'ACGT', 'UGCA')),
    }),
    pyTool({
      name: 'translate_mrna_to_amino_acid',
      description: 'Translates mRNA sequence to a chain of amino acids. Arguments: mrna_sequence (str)',
      input: mrna,
      output: z.string(),
      positional: (a) => [py.str(a.mrna_sequence)],
      run: (a) => py.str(translateMrna(a.mrna_sequence)),
    }),
    pyTool({
      name: 'find_max_nucleotide',
      description:
        'Return the nucleotide (str) with the maximum count (int). Arguments: nucleotide_counts in the form of (k1, v1, k2, v2, ..., kn, vn)',
      input: z.object({ args: z.array(scalar).describe('k1, v1, k2, v2, ... (*args).') }),
      output: z.tuple([scalar, scalar]),
      positional: (a) => a.args.map(fromJson),
      run: (a) => findMaxNucleotide(a.args.map(fromJson)),
    }),
    pyTool({
      name: 'is_valid_dna_sequence',
      description: 'Checks if the DNA sequence is valid. Arguments: dna_sequence (str)',
      input: sequence,
      output: z.boolean(),
      positional: (a) => [py.str(a.dna_sequence)],
      run: (a) => py.bool(Array.from(a.dna_sequence).every((ch) => 'ACGT'.includes(ch))),
    }),
    pyTool({
      name: 'reverse_transcribe_mrna_to_dna',
      description: 'Reverse transcribes mRNA sequence to DNA. Arguments: mrna_sequence (str)',
      input: mrna,
      output: z.string(),
      positional: (a) => [py.str(a.mrna_sequence)],
      run: (a) => py.str(translateChars(a.mrna_sequence, 'UCAG', 'AGTC')),
    }),
  ];
}
