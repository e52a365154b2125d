import { FUNCTION_NAMES } from './names';
import type { Family, FunctionDef } from './types';
import { closest } from '../util/suggest';

/**
 * The function registry: every #f()/@f() of spec 4.4, one entry each. Evaluation, the REPL and kernel
 * completion and inspect, and docs/functions.md all read it. A family's module (and what it pulls:
 * decimal.js, JSONPath, CSV and XML parsers, CMS…) loads on the first lookup of one of its names, which
 * happens when a template is compiled. That compile is synchronous (commands call it while binding a
 * statement), so the family is required, not imported.
 */
const FAMILIES: { readonly [F in Family]: () => FunctionDef[] } = {
  data: () => (require('./data') as typeof import('./data')).dataFunctions,
  string: () => (require('./string') as typeof import('./string')).stringFunctions,
  date: () => (require('./date') as typeof import('./date')).dateFunctions,
  other: () => (require('./other') as typeof import('./other')).otherFunctions,
  operator: () => (require('./operators') as typeof import('./operators')).operatorFunctions,
};

/** The families in the order docs/functions.md and completion list them. */
const ORDER = Object.keys(FAMILIES) as Family[];

const familyOf = new Map<string, Family>();
for (const family of ORDER) {
  for (const name of FUNCTION_NAMES[family]) {
    if (familyOf.has(name)) throw new Error(`function ${name} registered twice`);
    familyOf.set(name, family);
  }
}

const loaded = new Map<Family, Map<string, FunctionDef>>();

/** A family's definitions by name, loaded on first use. */
function family(f: Family): Map<string, FunctionDef> {
  let defs = loaded.get(f);
  if (!defs) {
    defs = new Map(familyFunctions(f).flatMap((def) => def.names.map((n) => [n, def] as const)));
    loaded.set(f, defs);
  }
  return defs;
}

export function findFunction(name: string): FunctionDef | undefined {
  const lower = name.toLowerCase();
  const f = familyOf.get(lower);
  return f && family(f).get(lower);
}

/** The definitions of one family, as its module defines them; loads it. */
export function familyFunctions(f: Family): readonly FunctionDef[] {
  return FAMILIES[f]();
}

/** Every function; loads every family. */
export function allFunctions(): readonly FunctionDef[] {
  return ORDER.flatMap(familyFunctions);
}

/** The closest registered name, for "did you mean". */
export function suggestFunction(name: string): string | undefined {
  return closest(name, familyOf.keys());
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
  return allFunctions().map((d) => ({
    name: d.names[0],
    aliases: d.names.slice(1),
    family: d.family,
    signature: d.signature,
    description: d.description,
    example: d.example,
    expected: d.expected,
  }));
}
