import type { Node } from '@xmldom/xmldom';
import type { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import type { Column, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { compileFilter } from '../expr';
import { compilePath, jsonPathNodes, parseDocument, selectDataset, sniffKind, type ParsedDocument } from '../docpath';
import type { ApplyFilter } from '../script/ast';
import { userRegExp } from '../util/user-regex';
import { parseXPath, type CompiledXPath } from '../docpath/xml-library';

/**
 * The per-row tests of APPLY FILTER REGEX, XPATH and TX, applied to the ON column. Each is compiled
 * once; per row it reads the cell's text and answers keep / drop, or says the cell is empty or not a
 * document it can read, which KEEP_EMPTY / KEEP_INVALID turn into keep.
 */
export type Verdict = boolean | 'empty' | 'invalid';
export type CellTest = (text: string) => Verdict;

/** The text of an ON cell; undefined for null and blank cells (KEEP_EMPTY decides). */
export function cellText(column: Column): (v: Value) => string | undefined {
  return (v) => {
    if (v === null) return undefined;
    const s = typeof v === 'string' ? v : formatValue(v, column.type);
    return s.trim() === '' ? undefined : s;
  };
}

/**
 * REGEX: .NET-style leading inline options `(?i)`, `(?s)`, `(?is)` become flags (JS has no inline
 * modifiers); CASE_INSENSITIVE adds `i`, SINGLE_LINE adds `s` (. matches a line feed, as .NET's
 * RegexOptions.Singleline). A match anywhere in the text keeps the row (Regex.IsMatch).
 */
export function regexTest(stmt: ApplyFilter): CellTest {
  let source = stmt.expression.value;
  let flags = '';
  const inline = /^\(\?([a-z]+)\)/.exec(source);
  if (inline && /^[is]+$/.test(inline[1])) {
    flags += inline[1];
    source = source.slice(inline[0].length);
  }
  if (stmt.caseInsensitive) flags += 'i';
  if (stmt.singleLine) flags += 's';
  let re: RegExp;
  try {
    re = userRegExp(source, [...new Set(flags)].join(''));
  } catch (e) {
    throw new ScriptError(`invalid regular expression: ${(e as Error).message}`, 'semantic', stmt.expression.pos);
  }
  return (text) => re.test(text);
}

/** A document the docpath module parses (the same XML reader as APPLY TX); undefined when malformed. */
function parsed(text: string, kind: 'xml' | 'json'): ParsedDocument {
  try {
    return parseDocument(text, kind);
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * XPATH: an expression starting with `$` is a JSON path (jsonpath-plus) for JSON records; anything
 * else is an XPath for XML records, evaluated per record (an XPath over a whole document is quadratic
 * in the npm package). A record of the other kind, or malformed, is invalid (KEEP_INVALID keeps it).
 * The row stays when the path selects something (XPath boolean(): a non-empty node-set, true, a
 * non-zero number, a non-empty string; a JSON path: at least one match).
 */
export function xpathTest(stmt: ApplyFilter): CellTest {
  const path = stmt.expression.value;
  if (/^\s*\$/.test(path)) {
    return (text) => {
      // Plain JSON.parse here: jsonpath-plus filters compare ordinary JS numbers.
      const json = sniffKind(text) === 'json' ? parseJson(text) : undefined;
      if (json === undefined) return 'invalid';
      try {
        return jsonPathNodes(path, json).length > 0;
      } catch (e) {
        throw new ScriptError(`invalid JSON path '${path}': ${(e as Error).message}`, 'semantic', stmt.expression.pos);
      }
    };
  }
  let compiled: CompiledXPath;
  try {
    compiled = parseXPath(path);
  } catch (e) {
    throw new ScriptError(`invalid XPath '${path}': ${(e as Error).message}`, 'semantic', stmt.expression.pos);
  }
  return (text) => {
    const doc = sniffKind(text) === 'xml' ? parsed(text, 'xml') : undefined;
    return doc === undefined ? 'invalid' : compiled.evaluateBoolean({ node: doc as Node });
  };
}

/**
 * TX: the cell's document becomes a dataset (document path `$`: the root's children are columns, an
 * array gives one row per element) and the SQL filter runs on it; the row stays when a record
 * matches. Documents differ in shape, so the filter is bound once per distinct schema. A document
 * lacking a column the filter names simply does not match; if no document has it, that is an error.
 */
export function txTest(stmt: ApplyFilter): { test: CellTest; finish: () => void } {
  const filter = compileFilter(stmt.expression.value, stmt.expression.pos);
  const needed = filter.columns.map((c) => c.toLowerCase());
  const bound = new Map<string, ((row: Value[]) => boolean) | undefined>();
  let matchedSchema = false;
  let missing: string | undefined;
  const predicateFor = (data: Dataset) => {
    const key = data.columns.map((c) => `${c.name.toLowerCase()}:${c.type.base}`).join('|');
    if (!bound.has(key)) {
      const absent = needed.find((name) => !data.has(name));
      missing ??= absent;
      bound.set(key, absent === undefined ? filter.bind(data.columns) : undefined);
    }
    return bound.get(key);
  };
  const paths = { json: compilePath('$', 'json'), xml: compilePath('$', 'xml') };
  const test: CellTest = (text) => {
    const kind = sniffKind(text);
    const root = kind && parsed(text, kind);
    if (!kind || root === undefined) return 'invalid';
    let data: Dataset;
    try {
      data = selectDataset(root, kind, paths[kind]);
    } catch {
      return 'invalid';
    }
    if (data.rowCount === 0) return 'empty';
    const p = predicateFor(data);
    if (!p) return false;
    matchedSchema = true;
    const read = data.reader();
    for (let r = 0; r < data.rowCount; r++) if (p(read(r))) return true;
    return false;
  };
  return {
    test,
    finish() {
      if (!matchedSchema && missing !== undefined) {
        throw new ScriptError(
          `no document in ON '${stmt.on?.value}' has a field '${missing}' used by the TX filter '${stmt.expression.value}'`,
          'runtime',
          stmt.expression.pos,
        );
      }
    },
  };
}
