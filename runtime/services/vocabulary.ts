import { functionDocs, type FunctionDoc } from '../functions/registry';
import { keywords, statementDocs, type StatementDoc } from '../script/parser';

/**
 * The words the language services offer, read from the registries the interpreter itself uses
 * (parser keywords, statement docs, function registry), so completion and documentation cannot
 * drift from what actually runs. Computed once: the registries are fixed after start-up.
 */

export type { FunctionDoc, StatementDoc };

let keywordList: string[] | undefined;
let functionIndex: Map<string, FunctionDoc> | undefined;

/** Language keywords (letters only, uppercase, sorted). */
export function languageKeywords(): string[] {
  keywordList ??= [
    ...new Set(
      keywords()
        .filter((k) => /^[A-Za-z_]+$/.test(k))
        .map((k) => k.toUpperCase()),
    ),
  ].sort();
  return keywordList;
}

/** Function docs by every name and alias (lowercase, without sigil). */
function functions(): Map<string, FunctionDoc> {
  functionIndex ??= new Map(functionDocs().flatMap((d) => [d.name, ...d.aliases].map((n) => [n, d] as const)));
  return functionIndex;
}

/** Function names and aliases without sigil, sorted. */
export function functionNames(): string[] {
  return [...functions().keys()].sort();
}

export function functionDoc(name: string): FunctionDoc | undefined {
  return functions().get(name.replace(/^[#@]/, '').toLowerCase());
}

export function statementDocList(): readonly StatementDoc[] {
  return statementDocs;
}
