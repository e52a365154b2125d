import type { Column, ColumnType, Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { DECOMPRESSORS, parquetReaderLib } from './library';
import { checkPages } from './pages';
import type { SchemaElement } from './schema';
import { toThread, type ThreadColumn } from '../dataset/thread-wire';

/**
 * A Parquet file's columns and cells as decoded off the main thread (decoder-thread.ts), in the form a
 * worker posts cheaply (dataset/thread-wire.ts). A DECIMAL column holds its unscaled integers (bigint): a Decimal
 * cannot be posted, so the reader scales them.
 */
export interface Decoded {
  columns: Column[];
  wire: ThreadColumn[];
  rows: number;
}

/** How a Parquet leaf is read: its column type, and how its decoded values become cells. */
interface Leaf {
  type: ColumnType;
  /** Decoded value (never null) → cell. */
  cell: (v: unknown) => Value;
}

const itself = (v: unknown) => v as Value;
const asNumber = (v: unknown) => Number(v);
const asBigint = (v: unknown) => (typeof v === 'bigint' ? v : BigInt(v as number));
const utf8 = new TextDecoder();

/**
 * Decodes a Parquet file (docs/drives.md, "Reading Parquet"), column types from the file's schema.
 * DECIMAL columns are read as their unscaled integers (the annotation is taken off the schema handed to
 * hyparquet, which would otherwise scale them through a float).
 */
export async function decodeParquet(full: string, display: string): Promise<Decoded> {
  const lib = parquetReaderLib();
  let metadata;
  let file;
  try {
    file = await lib.asyncBufferFromFile(full);
    metadata = await lib.parquetMetadataAsync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ScriptError(`file not found: ${display}`, 'runtime');
    throw new ScriptError(`${display} is not a readable Parquet file: ${reason(e, 'its footer')}`, 'runtime');
  }
  const schema = metadata.schema as unknown as SchemaElement[];
  const top = topLevel(schema, display);
  chunksInSchema(metadata.row_groups, new Set(top.map((e) => e.name)), display);
  await checkPages(file, metadata.row_groups, display);
  const leaves = top.map((e) => leafOf(e, display));
  const rows = Number(metadata.num_rows);
  const columns: Column[] = top.map((e, k) => ({ name: e.name, type: leaves[k].type }));
  const data: Value[][] = columns.map(() => new Array<Value>(rows).fill(null));
  const ordinal = new Map(top.map((e, k) => [e.name, k]));
  const plain = schema.map((e) =>
    e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL'
      ? { ...e, converted_type: undefined, logical_type: undefined }
      : e,
  );
  try {
    await lib.parquetRead({
      file,
      metadata: { ...metadata, schema: plain } as never,
      utf8: false,
      compressors: DECOMPRESSORS,
      parsers: { jsonFromBytes: (bytes: Uint8Array) => bytes && utf8.decode(bytes) },
      onChunk: ({ columnName, columnData, rowStart, rowEnd }) => {
        const k = ordinal.get(columnName)!;
        const into = data[k];
        const cell = leaves[k].cell;
        for (let r = rowStart; r < rowEnd; r++) {
          const v: unknown = columnData[r - rowStart];
          into[r] = v === null || v === undefined ? null : cell(v);
        }
      },
    });
  } catch (e) {
    if (e instanceof ScriptError) throw e;
    throw new ScriptError(`cannot read ${display}: ${reason(e, 'its data')}`, 'runtime');
  }
  return { columns, wire: columns.map((c, k) => toThread(c.type, data[k])), rows };
}

/**
 * Every column chunk names a column of the schema. hyparquet checks this only while it starts reading
 * the chunks one by one: a corrupt name then rejects the read with the chunks before it still
 * reading, and when one of those fails too nothing awaits it — an unhandled rejection that ends the
 * process (the kernel, the REPL). Checked here first, such a file is an error before any read starts.
 */
function chunksInSchema(
  groups: readonly { columns: readonly { meta_data?: { path_in_schema: string[] } }[] }[],
  names: ReadonlySet<string>,
  display: string,
): void {
  for (const group of groups)
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema ?? [];
      if (path.length !== 1 || !names.has(path[0]))
        throw new ScriptError(
          `${display} is not a readable Parquet file: a column chunk names '${path.join('.')}', which its schema does not have`,
          'runtime',
        );
    }
}

/**
 * What hyparquet's failure says: its own errors name the problem (`parquet file invalid (footer != PAR1)`);
 * JavaScript's, from walking corrupt bytes (`Cannot read properties of undefined`, `Offset is outside
 * the bounds of the DataView`), only that `part` is corrupt.
 */
function reason(e: unknown, part: string): string {
  return e instanceof TypeError || e instanceof RangeError ? `${part} is corrupt` : (e as Error).message;
}

/** The top-level fields; nested groups and repeated fields have no flat column form. */
function topLevel(schema: SchemaElement[], display: string): SchemaElement[] {
  const out: SchemaElement[] = [];
  const count = schema[0]?.num_children ?? 0;
  let i = 1;
  for (let k = 0; k < count; k++) {
    const e = schema[i];
    if (e.num_children || (e as { repetition_type?: string }).repetition_type === 'REPEATED') {
      throw new ScriptError(
        `${display}: column '${e.name}' is nested or repeated; only flat Parquet columns are read`,
        'runtime',
      );
    }
    out.push(e);
    i++;
  }
  return out;
}

function leafOf(e: SchemaElement, display: string): Leaf {
  const logical = e.logical_type?.type;
  if (e.converted_type === 'DECIMAL' || logical === 'DECIMAL') return decimalLeaf(e);
  switch (e.type) {
    case 'BOOLEAN':
      return { type: { base: 'bool' }, cell: itself };
    case 'INT32':
      if (e.converted_type === 'DATE' || logical === 'DATE') return { type: { base: 'datetime' }, cell: itself };
      if (e.converted_type === 'UINT_8') return { type: { base: 'tinyint' }, cell: asNumber };
      if (e.converted_type === 'INT_16' || e.converted_type === 'INT_8' || e.converted_type === 'UINT_16')
        return { type: { base: 'short' }, cell: asNumber };
      if (e.converted_type === 'UINT_32') return { type: { base: 'long' }, cell: asBigint };
      return { type: { base: 'int' }, cell: asNumber };
    case 'INT64':
      if (e.converted_type?.startsWith('TIMESTAMP') || logical === 'TIMESTAMP')
        return { type: { base: 'datetime' }, cell: itself };
      return { type: { base: 'long' }, cell: asBigint };
    case 'FLOAT':
      return { type: { base: 'float' }, cell: asNumber };
    case 'DOUBLE':
      return { type: { base: 'double' }, cell: asNumber };
    case 'BYTE_ARRAY':
      if (
        e.converted_type === 'UTF8' ||
        e.converted_type === 'ENUM' ||
        e.converted_type === 'JSON' ||
        logical === 'STRING' ||
        logical === 'ENUM' ||
        logical === 'JSON'
      ) {
        return { type: { base: 'string' }, cell: (v) => (typeof v === 'string' ? v : utf8.decode(v as Uint8Array)) };
      }
      return { type: { base: 'bytes' }, cell: itself };
    case 'FIXED_LEN_BYTE_ARRAY':
      if (logical === 'UUID') return { type: { base: 'guid' }, cell: itself };
      if (logical === 'FLOAT16') return { type: { base: 'float' }, cell: asNumber };
      return { type: { base: 'bytes' }, cell: itself };
    default:
      // INT96: the legacy timestamp, which hyparquet decodes to a Date.
      if ((e.type as unknown) === 'INT96') return { type: { base: 'datetime' }, cell: itself };
      throw new ScriptError(
        `${display}: column '${e.name}' has the Parquet type ${String(e.type)}, which is not read`,
        'runtime',
      );
  }
}

/** An unscaled integer: INT32, INT64, or big-endian two's complement bytes. */
function decimalLeaf(e: SchemaElement): Leaf {
  const scale = e.scale ?? (e.logical_type?.scale as number | undefined) ?? 0;
  const precision = e.precision ?? (e.logical_type?.precision as number | undefined);
  return {
    type: { base: 'decimal', precision, scale },
    cell: (v) => (v instanceof Uint8Array ? fromTwosComplement(v) : BigInt(v as number | bigint)),
  };
}

function fromTwosComplement(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return bytes.length > 0 && bytes[0] & 0x80 ? n - (1n << BigInt(bytes.length * 8)) : n;
}
