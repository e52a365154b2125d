import type { Node } from '@xmldom/xmldom';
import type { Dataset } from '../dataset/dataset';
import { ScriptError, type Position } from '../errors';
import { atArgument } from '../at-argument';
import { exactText, isExact, parseJson, stringifyJson } from './json';
import { compilePath, type DocKind, type PathPart } from './path';
import { documentRecords } from './records';
import { selectJson } from './select-json';
import { selectXml } from './select-xml';
import { recordsToDataset } from './typing';
import { parseXml, textOf } from './xml';

/**
 * Document paths (reference.md "Document paths"): JSON and XML documents → datasets, for APPLY TX,
 * SELECT FROM HTTP/DRIVE … APPLY TX, the APPLY FILTER TX/XPATH filters and the webhook's rootpath.
 * See docs/sources.md for the path language and how values are typed.
 */

export type { DocKind, PathPart } from './path';
export { compilePath } from './path';
export { jsonPathNodes } from './jsonpath';
export { recordsToDataset, uniqueName, type BuildOptions } from './typing';
export { documentRecords } from './records';

/**
 * An error of the document itself, not of the path that selects from it: placed at the file or the
 * URL, where its other errors (not found, invalid JSON) are, not under an APPLY TX path.
 */
export class DocumentError extends ScriptError {}

/** Either spelling of a document kind is accepted ('json' or 'JSON'). */
export type DocKindArg = DocKind | Uppercase<DocKind>;

export interface DocumentOptions {
  /** Adds a string column of that name with the raw JSON/XML text of each record (RAWCOL). */
  rawCol?: string;
  /** Fractions become decimal instead of double (#setjsonsettings floatparsehandling:decimal). */
  floatDecimal?: boolean;
  /** Names the document (a file, "row 3 of column payload") in error messages. */
  source?: string;
  /**
   * A plain path (names and indexes: no wildcard, filter or predicate) that selects no node is an
   * error naming it as `name` ('rootpath', 'APPLY TX path'), at `pos`: it names something the
   * document does not have, where a path to an empty array selects the array, and a wildcard or
   * filter may rightly match nothing. `within` names the document there when `source` does not.
   */
  mustSelect?: { name: string; pos?: Position; within?: string };
}

/** A parsed document: JSON values, or an xmldom Document. */
export type ParsedDocument = unknown;

function kindOf(kind: DocKindArg): DocKind {
  return kind.toLowerCase() as DocKind;
}

/**
 * Parses document text; malformed text is a ScriptError with line and column. `floatDecimal`: JSON
 * fractions will be typed as decimals, so their written scale is kept (`12.50`).
 */
export function parseDocument(text: string, kind: DocKindArg, source?: string, floatDecimal = false): ParsedDocument {
  return kindOf(kind) === 'xml' ? parseXml(text, source) : parseJson(text, source, 1, floatDecimal);
}

/** 'xml' when the text starts with '<', 'json' with '{' or '[', otherwise undefined. */
export function sniffKind(text: string): DocKind | undefined {
  const m = /\S/.exec(text);
  const c = m ? m[0] : '';
  return c === '<' ? 'xml' : c === '{' || c === '[' ? 'json' : undefined;
}

/** The document kind a media type names (application/json, text/xml, application/atom+xml…). */
export function kindOfMediaType(mediaType: string): DocKind | undefined {
  const t = mediaType.toLowerCase();
  if (/[/+]json\b/.test(t)) return 'json';
  if (/[/+]xml\b/.test(t)) return 'xml';
  return undefined;
}

/**
 * The dataset a path selects in a document (text or already parsed JSON/XML DOM). `$` is the root:
 * its direct children become columns; an array (in XML, the root's repeated children) gives one row
 * per element.
 */
export function documentToDataset(
  doc: string | object,
  kind: DocKindArg,
  path = '$',
  options: DocumentOptions = {},
): Dataset {
  const k = kindOf(kind);
  const root = typeof doc === 'string' ? parseDocument(doc, k, options.source, options.floatDecimal) : doc;
  return selectDataset(root, k, compilePath(path.trim() || '$', k), options);
}

/** As documentToDataset, for a path compiled once and a document parsed by the caller. */
export function selectDataset(
  root: ParsedDocument,
  kind: DocKind,
  parts: readonly PathPart[],
  options: DocumentOptions = {},
): Dataset {
  if (options.mustSelect && selectsNoNode(root, kind, parts[0]))
    throw new ScriptError(
      `${options.mustSelect.name} '${parts.map((p) => p.text).join(' || ')}' selects nothing in ${options.source ?? options.mustSelect.within ?? 'the document'} (a path to an empty array selects the array: 0 rows)`,
      'semantic',
      options.mustSelect.pos,
    );
  try {
    const { records, raws } = documentRecords(root, kind, parts, options.rawCol !== undefined);
    return recordsToDataset(records, {
      inferText: kind === 'xml',
      floatDecimal: options.floatDecimal,
      raw: options.rawCol !== undefined ? { name: options.rawCol, values: raws! } : undefined,
    });
  } catch (e) {
    // A value thousands of levels deep overflows the stack of the typing (JSON.stringify of a cell):
    // say what is wrong with the document, not V8's words (issue 16).
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new DocumentError(
        `${options.source ?? 'the document'} is nested too deeply (arrays or objects inside one another thousands of levels down)`,
      );
    throw e;
  }
}

/** Whether `part` is a plain path (DocumentOptions.mustSelect) that selects no node at all in `root`. */
function selectsNoNode(root: ParsedDocument, kind: DocKind, part: PathPart): boolean {
  const plain =
    part.kind === 'dotted'
      ? part.steps.every((s) => s.kind !== 'all')
      : part.kind === 'xpath' && !/[*[(]/.test(part.text);
  // `$` is the root, there in every document (in XML it selects the root's children, maybe none).
  if (!plain || (part.kind === 'dotted' && part.steps.length === 0)) return false;
  return (kind === 'xml' ? selectXml(root as Node, part) : selectJson(root, part)).length === 0;
}

/**
 * The text of the first node a path selects (paging links and tokens), or null when it selects
 * nothing or null. Objects and arrays give their JSON text. `||` joins are not allowed here.
 */
export function valueAtPath(
  root: ParsedDocument,
  kind: DocKindArg,
  path: string,
  /** Where the script wrote the path (PAGING_PATH): a path that does not compile is placed there. */
  pos?: Position,
): string | null {
  const k = kindOf(kind);
  const parts = atArgument(pos && { pos }, () => compilePath(path, k));
  if (parts.length > 1)
    throw new ScriptError(`'${path}' joins paths with '||'; a single value needs a single path`, 'semantic', pos);
  if (k === 'xml') {
    const first = selectXml(root as Node, parts[0])[0];
    if (first === undefined) return null;
    return typeof first === 'string' ? first : textOf(first);
  }
  const first = selectJson(root, parts[0])[0];
  if (first === undefined || first === null) return null;
  if (typeof first === 'string') return isExact(first) ? exactText(first) : first;
  return typeof first === 'number' || typeof first === 'boolean' ? String(first) : stringifyJson(first);
}
