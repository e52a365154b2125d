import { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import type { Column, Value } from '../dataset/types';
import {
  compilePath,
  DocumentError,
  kindOfMediaType,
  parseDocument,
  selectDataset,
  sniffKind,
  type DocKind,
  type PathPart,
} from '../docpath';
import { ScriptError, type Position } from '../errors';
import { concatDatasets } from './concat';
import { isCsvOptions, parseCsvOptions, type CsvOptions } from './csv/options';
import { parseCsv } from './csv/parse';

/**
 * APPLY TX: a text (an HTTP payload, a column of documents) → rows. The TX text is either CSV
 * options ('headers:1 delimiter:;') or a document path (docs/sources.md).
 */
export type TxPlan =
  | { kind: 'csv'; options: CsvOptions }
  | { kind: 'path'; path: string; pos?: Position; compiled: Partial<Record<DocKind, readonly PathPart[]>> };

export function compileTx(text: string, pos?: Position): TxPlan {
  if (isCsvOptions(text)) return { kind: 'csv', options: parseCsvOptions(text, pos) };
  return { kind: 'path', path: text.trim() || '$', pos, compiled: {} };
}

export interface TxOptions {
  rawCol?: string;
  floatDecimal: boolean;
  /** Names the document in errors ("GET http://…", "row 3 of payload"). */
  source?: string;
  /** The response's media type, which says JSON or XML before the text is sniffed. */
  mediaType?: string;
  /**
   * A plain path that selects nothing is an error naming it, at the path (DocumentOptions.mustSelect):
   * set where the document is the whole answer, not a row's own document nor a later page.
   */
  mustSelect?: boolean;
}

/** JSON or XML: by media type, else by the first character. `source` names the document in errors. */
export function documentKind(text: string, mediaType?: string, source?: string): DocKind {
  const kind = (mediaType && kindOfMediaType(mediaType)) || sniffKind(text);
  if (!kind) {
    const what = source ? `${source}: the document` : 'the document';
    throw new ScriptError(
      `${what} is neither JSON nor XML${mediaType ? ` (${mediaType})` : ''}; APPLY TX with CSV options reads CSV`,
      'runtime',
    );
  }
  return kind;
}

function pathFor(plan: Extract<TxPlan, { kind: 'path' }>, kind: DocKind): readonly PathPart[] {
  let parts = plan.compiled[kind];
  if (!parts) {
    try {
      parts = compilePath(plan.path, kind);
    } catch (e) {
      throw e instanceof ScriptError && !(e instanceof DocumentError) ? e.locate(plan.pos) : e;
    }
    plan.compiled[kind] = parts;
  }
  return parts;
}

/** The rows of one text. */
export function transformText(text: string, plan: TxPlan, options: TxOptions): Dataset {
  if (plan.kind === 'csv') return parseCsv(text, plan.options, options.source);
  const kind = documentKind(text, options.mediaType, options.source);
  return transformParsed(parseDocument(text, kind, options.source, options.floatDecimal), kind, plan, options);
}

/** The rows of a document the caller has parsed already. */
export function transformParsed(
  root: unknown,
  kind: DocKind,
  plan: Extract<TxPlan, { kind: 'path' }>,
  options: TxOptions,
): Dataset {
  const { mustSelect, ...read } = options;
  try {
    return selectDataset(root, kind, pathFor(plan, kind), {
      ...read,
      mustSelect: mustSelect ? { name: 'APPLY TX path', pos: plan.pos } : undefined,
    });
  } catch (e) {
    // An XPath is compiled as it selects: its syntax error, too, points at the path.
    throw e instanceof ScriptError && !(e instanceof DocumentError) ? e.locate(plan.pos) : e;
  }
}

/**
 * APPLY TX over a dataset column. Without `carry`, the rows of every row's document make the new
 * dataset. With `carry` (APPLY TX … ON '<column>'), each row's other columns are repeated on the rows
 * of its document; a row whose document is empty or gives no rows stays, with the document columns
 * null. A document column named like a carried column is renamed `<ON column>.<name>`. Documents
 * are typed one by one and stacked (concatDatasets widens a column typed differently by two rows).
 */
export async function transformColumn(
  input: Dataset,
  column: string,
  plan: TxPlan,
  options: TxOptions,
  carry: boolean,
  /** With `carry`: a row whose document gives no rows stays (APPLY TX), or is left out (SINK … ON COLUMN). */
  keepEmpty: boolean,
  /** Shapes one document (transformText, or a worker thread for a large one: shape-thread.ts). */
  shape: (text: string, options: TxOptions) => Dataset | Promise<Dataset>,
): Promise<Dataset> {
  const ordinal = input.require(column);
  const type = input.columns[ordinal].type;
  const columnName = input.columns[ordinal].name;
  const carried = carry ? input.columns.map((c, i) => ({ c, i })).filter(({ i }) => i !== ordinal) : [];
  // Carried cells keep their values, so their columns keep what they say of them (FORMAT's mark).
  const carriedColumns: Column[] = carried.map(({ c }) => ({ ...c }));
  const taken = new Set(carriedColumns.map((c) => c.name.toLowerCase()));
  const parts: Dataset[] = [];
  const documents = input.column(ordinal);
  for (let r = 0; r < input.rowCount; r++) {
    const text = cellText(documents[r], type);
    const doc =
      text === undefined ? new Dataset() : await shape(text, { ...options, source: `row ${r + 1} of ${columnName}` });
    if (!carry) {
      parts.push(doc);
      continue;
    }
    if (doc.rowCount === 0 && !keepEmpty) continue;
    // The row's carried cells, repeated on each of its document's rows (one row when it has none).
    const count = Math.max(1, doc.rowCount);
    const columns = carriedColumns.concat(
      doc.columns.map((c) => ({
        name: taken.has(c.name.toLowerCase()) ? `${columnName}.${c.name}` : c.name,
        type: c.type,
      })),
    );
    const data = carried
      .map(({ i }) => new Array<Value>(count).fill(input.cell(r, i)))
      .concat(doc.rowCount === 0 ? doc.data.map(() => [null]) : doc.data);
    parts.push(new Dataset(columns, data, count));
  }
  if (carry && parts.length === 0) return Dataset.fromRows(carriedColumns, []);
  return concatDatasets(parts);
}

function cellText(v: Value, type: Column['type']): string | undefined {
  if (v === null) return undefined;
  const text =
    typeof v === 'string' ? v : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : formatValue(v, type);
  return text.trim() === '' ? undefined : text;
}
