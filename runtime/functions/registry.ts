import { dataFunctions } from './data';
import { dateFunctions } from './date';
import { operatorFunctions } from './operators';
import { otherFunctions } from './other';
import { stringFunctions } from './string';
import type { Family, FunctionDef } from './types';
import { closest } from '../util/suggest';

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

/** The closest registered name, for "did you mean". */
export function suggestFunction(name: string): string | undefined {
  return closest(name, byName.keys());
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
