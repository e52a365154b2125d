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
  return verdict === true ? referenceProblem(fragment) : verdict.err.msg;
}

/** A reference XML defines without a DTD: a predefined entity, or a decimal or hex character reference. */
const REFERENCE = /&(?:amp|lt|gt|quot|apos|#([0-9]+)|#x([0-9A-Fa-f]+));/y;

/** Where text that holds no markup ends, for what starts with these (CDATA, comment, processing instruction). */
const TEXT_ENDS: readonly (readonly [string, string])[] = [
  ['<![CDATA[', ']]>'],
  ['<!--', '-->'],
  ['<?', '?>'],
];

/**
 * The validator checks the markup, not what a reference names: `&nbsp;` or `&#0;` pass it, and it
 * takes a `<!DOCTYPE …>` with entity declarations inside an element. A fragment stands inside the
 * document's root element, where XML allows no DOCTYPE, so it has no DTD: only the five predefined
 * entities and references to characters XML allows are defined, and any other `&name;` is refused.
 * A DOCTYPE or other declaration is refused, never expanded (a reader of the document might expand
 * its entities: billion laughs). CDATA sections, comments and processing instructions are text.
 */
function referenceProblem(fragment: string): string | undefined {
  if (!fragment.includes('&') && !fragment.includes('<!')) return undefined;
  let i = 0;
  while (i < fragment.length) {
    const c = fragment[i];
    if (c === '<') {
      const text = TEXT_ENDS.find(([open]) => fragment.startsWith(open, i));
      if (text) {
        const end = fragment.indexOf(text[1], i + text[0].length);
        i = end < 0 ? fragment.length : end + text[1].length;
      } else if (fragment.startsWith('<!', i)) {
        return `it has a declaration ${wordAt(fragment, i)}: a fragment stands inside the root element, with no DTD and no entities of its own`;
      } else i++;
    } else if (c === '&') {
      REFERENCE.lastIndex = i;
      const m = REFERENCE.exec(fragment);
      if (!m) {
        const name = wordAt(fragment, i);
        return `undefined entity ${name}: without a DTD XML defines &amp; &lt; &gt; &quot; &apos; and character references`;
      }
      if (m[0].startsWith('&#') && !xmlChar(m[1] !== undefined ? Number(m[1]) : parseInt(m[2], 16)))
        return `${m[0]} refers to a character XML does not allow`;
      i = REFERENCE.lastIndex;
    } else i++;
  }
  return undefined;
}

/** The reference or declaration name at `i`, for an error (`&nbsp;`, `<!DOCTYPE`). */
function wordAt(text: string, i: number): string {
  const word = /^[&<]!?[^\s;<>&!]*;?/.exec(text.slice(i, i + 40))![0];
  return `'${word}'`;
}

/** XML 1.0's Char production: the characters a document may hold, written or referred to. */
function xmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}
