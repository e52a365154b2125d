import { XMLValidator } from 'fast-xml-parser';
import type { Column } from '../dataset/types';
import type { DocFormat } from '../script/ast';
import { CRLF } from './csv';
import type { WriterOptions } from './options';
import { recordWriter, textualFields } from './records';
import type { RowWriter } from './row-writer';

/**
 * Complete documents: a JSON array, an XML document under a `<root>` element, or CSV records (each
 * ending in CRLF, RFC 4180) after an optional header line. ZIP COLUMN builds them from fragments
 * already written; rendering, SINK and payloads from a dataset's rows (dataset-text.ts).
 */

const XML_ROOT = 'root';

/** What goes around the records: `open`, records each followed by `terminator` and separated by `separator`, `close`. */
export interface Framing {
  open: string;
  separator: string;
  terminator: string;
  close: string;
}

export function framing(format: DocFormat, csvHeader?: string): Framing {
  switch (format) {
    case 'JSON':
      return { open: '[', separator: ',', terminator: '', close: ']' };
    case 'XML':
      return {
        open: `<?xml version="1.0" encoding="utf-8"?><${XML_ROOT}>`,
        separator: '',
        terminator: '',
        close: `</${XML_ROOT}>`,
      };
    case 'CSV':
      return { open: csvHeader === undefined ? '' : csvHeader + CRLF, separator: '', terminator: CRLF, close: '' };
  }
}

/** A document writer for rows: its framing, its record writer and the ordinals that writer reads. */
export interface DocumentWriter {
  framing: Framing;
  record: RowWriter;
  ordinals: readonly number[];
  /** Per field: whether `withTexts` can take its cell as text (records.ts `textualFields`). */
  textual: readonly boolean[];
  /** The record writer for rows whose fields flagged in `texts` hold their cell's invariant text. */
  withTexts(texts: readonly boolean[]): RowWriter;
}

export function documentWriter(
  format: DocFormat,
  columns: readonly Column[],
  ordinals: readonly number[],
  options: WriterOptions,
): DocumentWriter {
  const { header, record } = recordWriter(format, columns, ordinals, options);
  return {
    framing: framing(format, header),
    record,
    ordinals,
    textual: textualFields(columns, ordinals, options),
    withTexts: (texts) => recordWriter(format, columns, ordinals, options, texts).record,
  };
}

/** ZIP COLUMN: a document of fragments; missing fragments (null) are left out by the caller. */
export function buildDocument(format: DocFormat, fragments: readonly string[]): string {
  if (format !== 'CSV') return frame(framing(format), fragments);
  // Fragments written with `headers:1` each start with the same header line: the document keeps it
  // once. Fragments without a shared first line are records only.
  if (fragments.length === 0) return '';
  const firstBreak = fragments[0].indexOf(CRLF);
  const header = firstBreak < 0 ? undefined : fragments[0].slice(0, firstBreak + CRLF.length);
  if (header === undefined || !fragments.every((f) => f.startsWith(header))) return frame(framing('CSV'), fragments);
  return frame(
    framing('CSV', header.slice(0, firstBreak)),
    fragments.map((f) => f.slice(header.length)),
  );
}

function frame({ open, separator, terminator, close }: Framing, records: readonly string[]): string {
  const body = records.length === 0 ? '' : records.join(terminator + separator) + terminator;
  return open + body + close;
}

/**
 * Why a ZIP fragment cannot stand in a document of `format` as it is, or undefined when it can. ZIP
 * joins fragments verbatim, so a plain text, a fragment of the other format or a malformed one
 * would make a document no reader accepts. A JSON fragment must parse as one JSON value; an XML
 * fragment must be elements (start with `<`, end with `>`, so not a bare text), without an XML
 * declaration of its own, that are well-formed inside the document's root element — or be blank.
 * CSV records are any text. The reason given ends with the parser's own words.
 */
export function fragmentProblem(format: DocFormat, fragment: string): string | undefined {
  if (format === 'CSV') return undefined;
  if (format === 'JSON') {
    try {
      JSON.parse(fragment);
      return undefined;
    } catch (e) {
      // V8 echoes a piece of the text, which the error already shows (shortened).
      const reason = (e as Error).message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/, '');
      return `is not a JSON value (${reason}); ZIP FORMAT JSON needs one per row, as ADD COLUMN … FORMAT JSON writes them`;
    }
  }
  let first = 0;
  let last = fragment.length - 1;
  while (first <= last && fragment.charCodeAt(first) <= 32) first++;
  while (last > first && fragment.charCodeAt(last) <= 32) last--;
  if (first > last) return undefined;
  const reason =
    fragment[first] !== '<' || fragment[last] !== '>'
      ? 'it does not start with an element'
      : fragment.startsWith('<?xml', first)
        ? 'it has an XML declaration of its own'
        : xmlProblem(fragment);
  if (reason === undefined) return undefined;
  return `is not an XML fragment (${reason}); ZIP FORMAT XML needs elements, as ADD COLUMN … FORMAT XML writes them`;
}

/** What the XML validator finds wrong with the fragment inside the document's root element. */
function xmlProblem(fragment: string): string | undefined {
  const verdict = XMLValidator.validate(`<${XML_ROOT}>${fragment}</${XML_ROOT}>`);
  return verdict === true ? undefined : verdict.err.msg;
}
