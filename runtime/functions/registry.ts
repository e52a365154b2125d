import { dataFunctions } from './data';
import { dateFunctions } from './date';
import { operatorFunctions } from './operators';
import { otherFunctions } from './other';
import { stringFunctions } from './string';
import type { Family, FunctionDef } from './types';

/**
 * The function registry: every #f()/@f() of spec 4.4, one entry each. Evaluation, the REPL and kernel
 * completion and inspect, and docs/functions.md all read it.
 */
const all: FunctionDef[] = [
  ...dataFunctions,
  ...stringFunctions,
  ...dateFunctions,
  ...otherFunctions,
  ...operatorFunctions,
];

const byName = new Map<string, FunctionDef>();
for (const def of all) {
  for (const name of def.names) {
    if (byName.has(name)) throw new Error(`function ${name} registered twice`);
    byName.set(name, def);
  }
}

export function findFunction(name: string): FunctionDef | undefined {
  return byName.get(name.toLowerCase());
}

export function allFunctions(): readonly FunctionDef[] {
  return all;
}

/** The closest registered name (edit distance ≤ 3, or a prefix), for "did you mean". */
export function suggestFunction(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of byName.keys()) {
    const d =
      candidate.startsWith(lower) || lower.startsWith(candidate)
        ? Math.abs(candidate.length - lower.length) * 0.5 + 0.5
        : distance(lower, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.min(3, lower.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** One documented function, as completion, inspect and docs show it. */
export interface FunctionDoc {
  name: string;
  aliases: string[];
  family: Family;
  signature: string;
  description: string;
  example: string;
  expected?: string;
}

export function functionDocs(): FunctionDoc[] {
  return all.map((d) => ({
    name: d.names[0],
    aliases: d.names.slice(1),
    family: d.family,
    signature: d.signature,
    description: d.description,
    example: d.example,
    expected: d.expected,
  }));
}
