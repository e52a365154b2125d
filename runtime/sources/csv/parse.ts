import Papa from 'papaparse';
import { ColumnBuilder } from '../../dataset/column-builder';
import { Dataset } from '../../dataset/dataset';
import { STRING, type Column } from '../../dataset/types';
import { lineColumn, where } from '../../docpath/location';
import { uniqueName } from '../../docpath/typing';
import { ScriptError } from '../../errors';
import type { CsvOptions } from './options';
import { quotedEmptyFields } from './quoted-empty';

/** CSV text → a dataset of string columns (APPLY SCHEMA types them). */
export function parseCsv(text: string, options: CsvOptions, source?: string): Dataset {
  const reader = new CsvReader(options, source, text.length);
  // In pieces, so papaparse's own row arrays for one piece are garbage before the next is parsed.
  for (let at = 0; at < text.length; at += BATCH) reader.push(text.slice(at, at + BATCH));
  return reader.end();
}

/**
 * Text is parsed in batches of about this much: under V8's 128 KB large-object size, so a batch's
 * text and papaparse's arrays for it live and die in the young generation.
 */
const BATCH = 1 << 16;
const LINE_FEEDS = /[\r\n]+/g;

/**
 * Reads CSV text pushed in pieces of any size (a file read in chunks), so the whole text never sits
 * in memory beside the rows. Pieces are parsed in batches of whole lines by papaparse (to arrays,
 * twice as fast as to objects); a row whose quoted field runs past the batch is carried into the
 * next one. Cells go straight into text columns (sized from `expectedLength`; column-builder.ts).
 */
export class CsvReader {
  private readonly options: CsvOptions;
  private readonly source: string | undefined;
  private readonly comments: RegExp | undefined;
  private config: Papa.ParseConfig | undefined;
  private parser: Papa.Parser | undefined;
  private started = false;
  private skipLeft: number;
  /** Text pushed but not parsed yet. */
  private pending: string[] = [];
  private pendingLength = 0;
  /**
   * Pending length that triggers the next parse. It grows past a carried partial row and past text
   * without a line end, so a long quoted field or a file without \n is not re-scanned at every piece.
   */
  private parseAt = BATCH;
  /** The start of a row the last batch ended inside (a quoted field spanning lines). */
  private partial = '';
  /** The file line `partial` (or the next batch) starts on, for error positions. */
  private line: number;
  private columns: Column[] | undefined;
  private width = 0;
  /** The cells read so far, by column; created with the first row (or the header). */
  private store: ColumnBuilder | undefined;
  /** The text length the whole input is expected to have (a file's size), to size the columns. */
  private readonly expectedLength: number;
  private parsedLength = 0;
  private expectedRows = 0;

  constructor(options: CsvOptions, source?: string, expectedLength = 0) {
    this.options = options;
    this.source = source;
    this.expectedLength = expectedLength;
    this.skipLeft = options.skip;
    this.line = options.skip + 1;
    if (options.comments.length > 0) {
      const starts = options.comments.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
      this.comments = new RegExp(`^(?:${starts})[^\\n\\r]*`, 'gm');
    }
  }

  push(piece: string): void {
    if (!this.started && piece.length > 0) {
      this.started = true;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    while (this.skipLeft > 0 && piece.length > 0) {
      const nl = piece.indexOf('\n');
      piece = nl < 0 ? '' : piece.slice(nl + 1);
      if (nl >= 0) this.skipLeft--;
    }
    if (piece.length === 0) return;
    this.pending.push(piece);
    this.pendingLength += piece.length;
    if (this.pendingLength >= this.parseAt) this.parsePending(false);
  }

  end(): Dataset {
    this.parsePending(true);
    const store = this.store ?? new ColumnBuilder(this.columns?.length ?? 0);
    const columns = this.columns ?? headerless(store.width);
    return new Dataset(columns, store.finish(), store.count);
  }

  /** Parses the pending whole lines (all the text when `last`). */
  private parsePending(last: boolean): void {
    let text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    if (!last) {
      // Comment and fixed-width lines are matched line by line: a batch ends at a line end.
      const cut = text.lastIndexOf('\n') + 1;
      if (cut === 0) {
        this.pending.push(text);
        this.pendingLength = text.length;
        this.parseAt = 2 * text.length;
        return;
      }
      if (cut < text.length) {
        this.pending.push(text.slice(cut));
        this.pendingLength = text.length - cut;
      }
      text = text.slice(0, cut);
    }
    // Comment lines become empty lines (skipped as such), so line numbers in errors stay right.
    if (this.comments) text = text.replace(this.comments, '');
    this.parsedLength += text.length;
    if (this.options.fields) this.splitFixed(text, this.options.fields);
    else this.splitDelimited(this.partial + text, last);
    this.parseAt = Math.max(BATCH, this.partial.length);
  }

  private splitDelimited(input: string, last: boolean): void {
    const { quote, delimiter } = this.options;
    // The line ending is guessed once, from the first batch.
    const config = (this.config ??= {
      delimiter,
      newline: guessLineEnding(input, quote ?? '"'),
      quoteChar: quote ?? '"',
      // Without quoting, papaparse's fast mode splits lines and fields and ignores quote characters.
      fastMode: quote === undefined ? true : undefined,
    });
    this.parser ??= new Papa.Parser(config);
    // An empty string is written `""`: only a batch where two quotes meet may hold one. There
    // papaparse hands over the records one by one with where each ends, so that a record holding an
    // empty field can be read again for the quoted ones.
    let records: string[][];
    const quotedEmpty: (Set<number> | undefined)[] = [];
    let errors: Papa.ParseError[];
    let consumedAt: number;
    if (quote !== undefined && input.includes(quote + quote)) {
      records = [];
      errors = [];
      let start = 0;
      // In the step callback `data` holds the one record.
      const step = (one: Papa.ParseStepResult<string[][]>) => {
        const record = one.data[0];
        if (record.includes('')) {
          quotedEmpty[records.length] = quotedEmptyFields(input.slice(start, one.meta.cursor), delimiter, quote);
        }
        records.push(record);
        for (const e of one.errors) errors.push(e);
        start = one.meta.cursor;
      };
      const rest = new Papa.Parser({ ...config, step }).parse(input, 0, !last) as Papa.ParseResult<string[]>;
      for (const e of rest.errors) errors.push(e);
      consumedAt = rest.meta.cursor;
    } else {
      const result = this.parser.parse(input, 0, !last) as Papa.ParseResult<string[]>;
      ({ data: records, errors } = result);
      consumedAt = result.meta.cursor;
    }
    const consumed = last ? input.length : consumedAt;
    const error = errors.find((e) => e.type === 'Quotes' && (last || (e.index ?? 0) < consumed));
    if (error) {
      const at = lineColumn(input, error.index ?? consumed, this.line);
      throw new ScriptError(`${where(this.source)}invalid CSV at ${at}: ${error.message.toLowerCase()}`, 'runtime');
    }
    this.estimateRows(records.length);
    for (let r = 0; r < records.length; r++) {
      const row = records[r];
      const quoted = quotedEmpty[r];
      // A blank line is no record; a line of `""` is one (an empty string).
      if (row.length !== 1 || row[0] !== '' || quoted?.has(0)) this.addRow(row, quoted);
    }
    for (let i = input.indexOf('\n'); i >= 0 && i < consumed; i = input.indexOf('\n', i + 1)) this.line++;
    this.partial = input.slice(consumed);
  }

  /** Fixed-width lines: each column takes its width; text past the last width is ignored. */
  private splitFixed(text: string, widths: number[]): void {
    const lines = text.split(/\r?\n/);
    this.estimateRows(lines.length);
    for (const line of lines) {
      if (line === '') continue;
      const row = new Array<string>(widths.length);
      let at = 0;
      for (let c = 0; c < widths.length; c++) {
        row[c] = line.slice(at, at + widths[c]);
        at += widths[c];
      }
      this.addRow(row);
    }
  }

  /**
   * A parsed row: the header, or a data row fitted to the header's width. Short rows get nulls; extra
   * fields are an error unless they are empty (a trailing delimiter), in which case they are dropped.
   * An empty field is null, unless `quotedEmpty` says it was written `""` (an empty string).
   */
  private addRow(fields: string[], quotedEmpty?: ReadonlySet<number>): void {
    if (!this.columns && this.options.headers) {
      this.setHeader(fields);
      return;
    }
    const width = this.columns ? this.width : fields.length;
    const n = fields.length < width ? fields.length : width;
    for (let c = width; c < fields.length; c++) {
      if (fields[c] !== '') {
        throw new ScriptError(
          `${where(this.source)}invalid CSV: data row ${(this.store?.count ?? 0) + 1} has ${fields.length} fields; the header has ${width}`,
          'runtime',
        );
      }
    }
    // Without a header the widest row decides the columns (Column1…): shorter rows get nulls.
    const store = (this.store ??= new ColumnBuilder(width, this.expectedRows));
    if (width > store.width) store.widen(width);
    const { trim, flatten } = this.options;
    for (let c = 0; c < n; c++) {
      let v = fields[c];
      if (v === '' && !quotedEmpty?.has(c)) {
        store.add(c, null);
        continue;
      }
      if (flatten && (v.includes('\n') || v.includes('\r'))) v = v.replace(LINE_FEEDS, '');
      if (trim) v = v.trim();
      store.add(c, v);
    }
    for (let c = n; c < store.width; c++) store.add(c, null);
    store.count++;
  }

  /**
   * The final row count as estimated from the text parsed so far, with `rows` more rows just parsed,
   * and a twentieth of margin; 0 when the input's length is unknown.
   */
  private estimateRows(rows: number): void {
    const read = (this.store?.count ?? 0) + rows;
    if (this.expectedLength === 0 || read === 0 || this.parsedLength === 0) return;
    this.expectedRows = Math.ceil((this.expectedLength / this.parsedLength) * read * 1.05);
  }

  private setHeader(names: string[]): void {
    const taken = new Set<string>();
    this.columns = names.map((raw, c) => {
      const name = raw.trim();
      return { name: uniqueName(name === '' ? `Column${c + 1}` : name, taken), type: STRING };
    });
    this.width = names.length;
  }
}

function headerless(width: number): Column[] {
  const columns: Column[] = [];
  for (let c = 0; c < width; c++) columns.push({ name: `Column${c + 1}`, type: STRING });
  return columns;
}

/**
 * The line ending papaparse would guess for the whole text: \n unless \r comes first (outside quoted
 * fields, within the first MB), then \r\n when most \r are followed by \n, else \r.
 */
function guessLineEnding(text: string, quote: string): '\n' | '\r\n' | '\r' {
  const escaped = quote.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const sample = text.substring(0, 1 << 20).replace(new RegExp(`${escaped}[^]*?${escaped}`, 'g'), '');
  const r = sample.split('\r');
  const n = sample.split('\n');
  if (r.length === 1 || (n.length > 1 && n[0].length < r[0].length)) return '\n';
  let withN = 0;
  for (let i = 0; i < r.length; i++) if (r[i][0] === '\n') withN++;
  return withN >= r.length / 2 ? '\r\n' : '\r';
}
