import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import alasql from 'alasql';
import { XMLValidator } from 'fast-xml-parser';
import { Dataset } from '../runtime/dataset/dataset';
import { formatDateTime } from '../runtime/dataset/format-value';
import type { Column, Value } from '../runtime/dataset/types';
import { DateVector, DecimalVector } from '../runtime/dataset/vector';
import { Session } from '../runtime/session';
import { fragmentProblem } from '../runtime/writers';
import { best, seededRandom } from './measure';

/**
 * `npm run bench -- transform`: the transformation statements on 1,000,000 generated rows, each
 * beside a reference measured in the same run (best of 5: a full collection of the garbage earlier
 * runs left, 0.3 s here, falls into whichever run crosses the heap limit):
 * - APPLY FILTER 'amount > 100 AND region LIKE ''e*''' vs the same predicate hand-written over the
 *   column arrays (goal: within 1.5x) and vs alasql running the same WHERE clause on the same rows as
 *   objects (goal: 8x faster); for information, a hand-written JS predicate in rows.filter, and the
 *   statement followed by reading every column of its result (the filtered columns are copied when
 *   first read); the same filter on the dataset widened to 20 columns (goal: within 1.2x of the
 *   6-column one: a filter reads only the columns it names);
 * - ADD COLUMN … FORMAT JSON vs JSON.stringify of each row as an object (goal: within 1.5x);
 * - ADD COLUMN 'total=@sql(price * qty)' and '@toupper({{name}})' defaults (goal: >= 1M rows/s); the
 *   first again with a typed decimal and datetime column added (goal: within 1.2x: a statement reads
 *   only the columns it names), and FORMAT JSON of that dataset vs JSON.stringify of the same rows
 *   holding the decimal as a number and the datetime as its text (goal: within 1.5x).
 */

const ROWS = 1_000_000;
const RUNS = 5;
const REGIONS = ['east', 'West', 'Europe', 'asia', 'EMEA', 'south', 'north', 'eastern'];

const columns: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'amount', type: { base: 'double' } },
  { name: 'region', type: { base: 'string' } },
  { name: 'price', type: { base: 'double' } },
  { name: 'qty', type: { base: 'int' } },
];

function generate(): Value[][] {
  const random = seededRandom();
  const rows = new Array<Value[]>(ROWS);
  for (let i = 0; i < ROWS; i++) {
    rows[i] = [
      i,
      `customer ${i % 5000}`,
      Math.round(random() * 20000) / 100,
      REGIONS[i % REGIONS.length],
      Math.round(random() * 1000) / 100,
      1 + (i % 9),
    ];
  }
  return rows;
}

/** The dataset with copies of its columns added up to `width` columns (shared storage, new names). */
function widened(input: Dataset, width: number): Dataset {
  const columns = [...input.columns];
  const vectors = input.columns.map((_, c) => input.vector(c));
  for (let c = columns.length; c < width; c++) {
    const from = c % input.columns.length;
    columns.push({ name: `extra${c}`, type: input.columns[from].type });
    vectors.push(input.vector(from));
  }
  return new Dataset(columns, vectors, input.rowCount);
}

/** The dataset with a typed decimal(12,2) and a datetime column added (what APPLY SCHEMA stores). */
function withTypedColumns(input: Dataset): Dataset {
  const random = seededRandom();
  const unscaled = new Float64Array(input.rowCount);
  const instants = new Float64Array(input.rowCount);
  for (let r = 0; r < input.rowCount; r++) {
    unscaled[r] = Math.round(random() * 1e8);
    instants[r] = Date.UTC(2024, 0, 1) + Math.floor(random() * 3e10);
  }
  return new Dataset(
    [
      ...input.columns,
      { name: 'balance', type: { base: 'decimal', precision: 12, scale: 2 } },
      { name: 'ts', type: { base: 'datetime' } },
    ],
    [
      ...input.columns.map((_, c) => input.vector(c)),
      new DecimalVector(unscaled, 2, undefined),
      new DateVector(instants, undefined),
    ],
    input.rowCount,
  );
}

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;
const rate = (s: number) => `${(ROWS / s / 1e6).toFixed(2)}M rows/s`;

function line(label: string, seconds: number, reference?: { label: string; seconds: number }, goal?: string): void {
  let text = `  ${label.padEnd(44)} ${ms(seconds)}  ${rate(seconds)}`;
  if (reference)
    text += `   ${reference.label}: ${ms(reference.seconds).trim()}  ratio ${(seconds / reference.seconds).toFixed(2)}x`;
  if (goal) text += `  (${goal})`;
  console.log(text);
}

const ZIP_BATCH = 1000;

/** What a hand-written ZIP would do to know each fragment fits the document (throws if not). */
const parsers = {
  JSON: (fragment: string) => JSON.parse(fragment) as unknown,
  XML: (fragment: string) => {
    if (XMLValidator.validate(`<root>${fragment}</root>`) !== true) throw new Error(`not XML: ${fragment}`);
  },
};

/**
 * ZIP COLUMN in batches of 1,000 over the fragments FORMAT JSON/XML wrote for every row: joined as
 * written (well-formed by construction), vs joining the same fragments (held in an array) into the
 * same documents by hand (goal: within 1.5x; ZIP also reads the column's storage). Then over the
 * same texts in a column that came from elsewhere (a dataset built from them, as a file read gives),
 * which ZIP parses one by one, vs the same parse (JSON.parse; fast-xml-parser's validator inside the
 * root element) and join by hand (goal: within 1.5x); for information, the check that each fragment
 * fits the format (fragmentProblem) alone over the same fragments, as a share of that statement.
 */
async function zipBench(on: (dataset: Dataset, script: string) => Promise<Dataset>, input: Dataset): Promise<void> {
  console.log(`ZIP COLUMN … BATCH ${ZIP_BATCH} over the fragments of ADD COLUMN … FORMAT, then the same texts read`);
  const framing = {
    JSON: { open: '[', separator: ',', close: ']', options: '' },
    XML: {
      open: '<?xml version="1.0" encoding="utf-8"?><root>',
      separator: '',
      close: '</root>',
      options: 'element:row',
    },
  };
  for (const format of ['JSON', 'XML'] as const) {
    const { open, separator, close, options } = framing[format];
    const formatted = await on(input, `ADD COLUMN 'doc' FORMAT ${format} COLLAPSE OPTIONS '${options}'`);
    const fragments = formatted.rows().map((r) => r[0] as string);
    const read = new Dataset([{ name: 'doc', type: { base: 'string' } }], [fragments]);
    const join = () => {
      const documents: string[] = [];
      for (let start = 0; start < fragments.length; start += ZIP_BATCH)
        documents.push(open + fragments.slice(start, start + ZIP_BATCH).join(separator) + close);
      return documents;
    };
    const joined = (documents: string[]) => {
      if (documents.length !== ROWS / ZIP_BATCH) throw new Error('the hand-written join lost documents');
    };
    const hand = await best(RUNS, join, joined);
    const parse = parsers[format];
    const handParsed = await best(
      RUNS,
      () => {
        for (const f of fragments) parse(f);
        return join();
      },
      joined,
    );
    const expected = open + fragments.slice(0, ZIP_BATCH).join(separator) + close;
    const zipOf = (dataset: Dataset) =>
      best(
        RUNS,
        () => on(dataset, `ZIP COLUMN 'doc' FORMAT ${format} BATCH ${ZIP_BATCH}`),
        (d) => {
          if (d.rowCount !== ROWS / ZIP_BATCH || d.cell(0, 0) !== expected)
            throw new Error(`ZIP COLUMN FORMAT ${format} differs from the hand-written join`);
        },
      );
    const zip = await zipOf(formatted);
    const zipRead = await zipOf(read);
    const check = await best(
      RUNS,
      () => fragments.filter((f) => fragmentProblem(format, f) !== undefined).length,
      (bad) => {
        if (bad !== 0) throw new Error(`${bad} fragments of FORMAT ${format} do not fit ZIP FORMAT ${format}`);
      },
    );
    line(
      `ZIP FORMAT ${format}, fragments FORMAT wrote`,
      zip,
      { label: 'the same join by hand', seconds: hand },
      `goal: within 1.5x: ${zip / hand <= 1.5 ? 'met' : 'MISSED'}`,
    );
    line(
      `… the same texts read (each one parsed)`,
      zipRead,
      { label: 'the same parse and join by hand', seconds: handParsed },
      `goal: within 1.5x: ${zipRead / handParsed <= 1.5 ? 'met' : 'MISSED'}`,
    );
    line(
      `… its check of the ${format} fragments alone`,
      check,
      undefined,
      `${((check / zipRead) * 100).toFixed(0)}% of the statement over the texts read`,
    );
  }
}

export async function runTransformBench(): Promise<void> {
  const rows = generate();
  const objects = rows.map((r) => ({ id: r[0], name: r[1], amount: r[2], region: r[3], price: r[4], qty: r[5] }));
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-transform-'));
  const session = new Session({ workspace: join(dir, '.sqlcdc'), cwd: dir });
  // Datasets are never modified, so every run can start from the same one.
  const input = Dataset.fromRows(columns, rows);
  const statement = async (script: string) => {
    session.setDataset(input);
    await session.run(script);
    return session.dataset;
  };
  console.log(`transform: ${ROWS.toLocaleString('en-US')} rows, best of ${RUNS}`);
  try {
    let expected = -1;
    const sameCount = (n: number) => {
      if (expected < 0) expected = n;
      else if (n !== expected) throw new Error(`filters disagree: ${n} rows vs ${expected}`);
    };
    const hand = await best(
      RUNS,
      () =>
        rows.filter(
          (r) =>
            r[2] !== null && (r[2] as number) > 100 && r[3] !== null && (r[3] as string).toLowerCase().startsWith('e'),
        ),
      (r) => sameCount(r.length),
    );
    // The same predicate by hand over column arrays of the values, giving the kept row numbers
    // (what the statement computes; its columns are copied out when a later statement reads them).
    const amount = rows.map((r) => r[2]);
    const region = rows.map((r) => r[3]);
    const handColumns = await best(
      RUNS,
      () => {
        const kept = new Uint32Array(rows.length);
        let n = 0;
        for (let r = 0; r < rows.length; r++) {
          const a = amount[r];
          const g = region[r];
          if (a !== null && (a as number) > 100 && g !== null && (g as string).toLowerCase().startsWith('e'))
            kept[n++] = r;
        }
        return kept.subarray(0, n);
      },
      (kept) => sameCount(kept.length),
    );
    const filter = await best(
      RUNS,
      () => statement("APPLY FILTER 'amount > 100 AND region LIKE ''e*'''"),
      (d) => sameCount(d.rowCount),
    );
    console.log(`APPLY FILTER 'amount > 100 AND region LIKE ''e*''' (${expected.toLocaleString('en-US')} rows kept)`);
    const columnsRatio = filter / handColumns;
    line(
      'APPLY FILTER',
      filter,
      { label: 'hand-written JS over the column arrays', seconds: handColumns },
      `goal: within 1.5x: ${columnsRatio <= 1.5 ? 'met' : 'MISSED'}`,
    );
    line('hand-written JS, rows.filter', hand, { label: 'APPLY FILTER', seconds: filter });
    const copied = await best(
      RUNS,
      async () => (await statement("APPLY FILTER 'amount > 100 AND region LIKE ''e*'''")).data,
      (data) => sameCount(data[0].length),
    );
    line('APPLY FILTER, then every column read', copied, { label: 'hand-written JS, rows.filter', seconds: hand });
    // alasql last: the garbage its objects leave is collected during whatever runs next.
    const ala = await best(
      RUNS,
      () => alasql<unknown[]>('SELECT * FROM ? WHERE amount > 100 AND LOWER(region) LIKE "e%"', [objects]),
      (r) => sameCount(r.length),
    );
    line(
      'alasql, same WHERE on the same rows',
      ala,
      undefined,
      `APPLY FILTER is ${(ala / filter).toFixed(1)}x faster; goal >= 8x: ${ala / filter >= 8 ? 'met' : 'MISSED'}`,
    );
    const wide = widened(input, 20);
    const wideFilter = await best(
      RUNS,
      async () => {
        session.setDataset(wide);
        await session.run("APPLY FILTER 'amount > 100 AND region LIKE ''e*'''");
        return session.dataset;
      },
      (d) => sameCount(d.rowCount),
    );
    line(
      'APPLY FILTER on the dataset widened to 20 columns',
      wideFilter,
      { label: '6 columns', seconds: filter },
      `goal: within 1.2x: ${wideFilter / filter <= 1.2 ? 'met' : 'MISSED'}`,
    );

    const stringify = await best(
      RUNS,
      () => {
        const out = new Array<string>(objects.length);
        for (let i = 0; i < objects.length; i++) out[i] = JSON.stringify(objects[i]);
        return out;
      },
      (out) => {
        if (out.length !== ROWS) throw new Error('stringify lost rows');
      },
    );
    const format = await best(
      RUNS,
      () => statement("ADD COLUMN 'doc' FORMAT JSON"),
      (d) => {
        const doc = d.data[d.columns.length - 1][7] as string;
        if (JSON.stringify(objects[7]) !== doc) throw new Error(`FORMAT JSON differs from JSON.stringify: ${doc}`);
      },
    );
    console.log('ADD COLUMN … FORMAT JSON');
    line(
      "ADD COLUMN 'doc' FORMAT JSON",
      format,
      { label: 'JSON.stringify per row', seconds: stringify },
      'goal: within 1.5x',
    );

    await zipBench(async (dataset, script) => {
      session.setDataset(dataset);
      await session.run(script);
      return session.dataset;
    }, input);

    console.log('ADD COLUMN defaults');
    const sql = await best(
      RUNS,
      () => statement("ADD COLUMN 'total=@sql(price * qty)'"),
      (d) => {
        if (d.data[6][3] !== String((rows[3][4] as number) * (rows[3][5] as number)))
          throw new Error('@sql total is wrong');
      },
    );
    line("ADD COLUMN 'total=@sql(price * qty)'", sql, undefined, 'goal: >= 1M rows/s');
    const upper = await best(
      RUNS,
      () => statement("ADD COLUMN 'up=@toupper({{name}})'"),
      (d) => {
        if (d.data[6][3] !== (rows[3][1] as string).toUpperCase()) throw new Error('@toupper is wrong');
      },
    );
    line("ADD COLUMN 'up=@toupper({{name}})'", upper, undefined, 'goal: >= 1M rows/s');
    // The same default with a typed decimal and datetime column beside: it reads only price and qty,
    // so the columns it does not name (a Decimal and a Date per cell if read) cost nothing.
    const typed = withTypedColumns(input);
    const typedSql = await best(
      RUNS,
      async () => {
        session.setDataset(typed);
        await session.run("ADD COLUMN 'total=@sql(price * qty)'");
        return session.dataset;
      },
      (d) => {
        if (d.cell(3, d.columns.length - 1) !== String((rows[3][4] as number) * (rows[3][5] as number)))
          throw new Error('@sql total is wrong');
      },
    );
    line(
      '… with a decimal and a datetime column beside',
      typedSql,
      { label: '6 columns', seconds: sql },
      `goal: within 1.2x: ${typedSql / sql <= 1.2 ? 'met' : 'MISSED'}`,
    );

    // FORMAT JSON with the typed columns, beside JSON.stringify of objects holding them as a number and
    // the ISO text (what the fragment writes for them).
    const balance = typed.vector(typed.indexOf('balance'));
    const ts = typed.vector(typed.indexOf('ts'));
    const typedObjects = objects.map((o, r) => ({
      ...o,
      balance: Number(balance.get(r)!.toString()),
      ts: formatDateTime(ts.get(r) as Date),
    }));
    const typedStringify = await best(
      RUNS,
      () => {
        const out = new Array<string>(typedObjects.length);
        for (let i = 0; i < typedObjects.length; i++) out[i] = JSON.stringify(typedObjects[i]);
        return out;
      },
      (out) => {
        if (out.length !== ROWS) throw new Error('stringify lost rows');
      },
    );
    const typedFormat = await best(
      RUNS,
      async () => {
        session.setDataset(typed);
        await session.run("ADD COLUMN 'doc' FORMAT JSON");
        return session.dataset;
      },
      (d) => {
        const doc = JSON.parse(d.cell(7, d.columns.length - 1) as string) as Record<string, unknown>;
        if (doc.ts !== typedObjects[7].ts || doc.balance !== typedObjects[7].balance)
          throw new Error(`FORMAT JSON of typed columns is wrong: ${JSON.stringify(doc)}`);
      },
    );
    line(
      '… FORMAT JSON with the decimal and datetime',
      typedFormat,
      { label: 'JSON.stringify per row', seconds: typedStringify },
      `goal: within 1.5x: ${typedFormat / typedStringify <= 1.5 ? 'met' : 'MISSED'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runTransformBench().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
