import type { AsyncBuffer, ColumnMetaData, PageHeader } from 'hyparquet';
import { ScriptError } from '../errors';
import { parquetColumnLib } from './library';

/** A first look at a page header; a longer one (large statistics) is read again whole. */
const HEADER_WINDOW = 1024;

function corruptParquet(display: string, reason: string): ScriptError {
  return new ScriptError(`corrupt Parquet file ${display}: ${reason}`, 'runtime');
}

/**
 * Walks every column chunk's page headers (small reads, page bodies skipped) and refuses sizes hyparquet
 * would trust blindly. A DATA_PAGE_V2 header without its level lengths sends hyparquet 1.31 reading at
 * offset NaN — byte 0 forever, an endless synchronous loop; such a file is an error here instead.
 * The walk stops where hyparquet's does: once the chunk's values are counted, or at its end.
 */
export async function checkPages(
  file: AsyncBuffer,
  groups: readonly { columns: readonly { meta_data?: ColumnMetaData }[] }[],
  display: string,
): Promise<void> {
  for (const [g, group] of groups.entries())
    for (const chunk of group.columns) {
      const meta = chunk.meta_data!;
      const where = `column '${meta.path_in_schema.join('.')}' of row group ${g + 1}`;
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      const end = start + Number(meta.total_compressed_size);
      if (!(start >= 0 && end >= start && end <= file.byteLength))
        throw corruptParquet(display, `the pages of ${where} lie outside the file`);
      const values = Number(meta.num_values);
      let counted = 0;
      for (let at = start, page = 1; counted < values && at < end - 1; page++) {
        const label = `page ${page} of ${where}`;
        const { header, length } = await readHeader(file, at, end, label, display);
        const problem = pageProblem(header, end - at - length);
        if (problem) throw corruptParquet(display, `${label} ${problem}`);
        counted += (header.data_page_header ?? header.data_page_header_v2)?.num_values ?? 0;
        at += length + header.compressed_page_size;
      }
    }
}

async function readHeader(
  file: AsyncBuffer,
  at: number,
  end: number,
  label: string,
  display: string,
): Promise<{ header: PageHeader; length: number }> {
  for (let window = Math.min(HEADER_WINDOW, end - at); ; window = Math.min(window * 16, end - at)) {
    const reader = { view: new DataView(await file.slice(at, at + window)), offset: 0 };
    try {
      return { header: parquetColumnLib().parquetHeader(reader), length: reader.offset };
    } catch (e) {
      if (!(e instanceof RangeError) || window === end - at)
        throw corruptParquet(display, `the header of ${label} is unreadable`);
    }
  }
}

/** What is wrong with a page header's sizes, given the bytes left in its chunk after it; undefined if nothing. */
function pageProblem(header: PageHeader, room: number): string | undefined {
  const size = header.compressed_page_size;
  if (!isCount(size)) return 'has no page size';
  if (size > room) return `says it holds ${size} bytes, but its column chunk has ${room} left`;
  const v1 = header.data_page_header;
  if (header.type === 'DATA_PAGE' && v1 && !isCount(v1.num_values)) return 'has no value count';
  const v2 = header.data_page_header_v2;
  if (header.type !== 'DATA_PAGE_V2' || !v2) return undefined;
  if (!isCount(v2.num_values)) return 'has no value count';
  const levels = [v2.repetition_levels_byte_length, v2.definition_levels_byte_length];
  if (!levels.every(isCount)) return 'is a DATA_PAGE_V2 header without its level lengths';
  if (levels[0] + levels[1] > size)
    return `is a DATA_PAGE_V2 header whose level lengths (${levels.join(' + ')} bytes) exceed its ${size} bytes`;
  return undefined;
}

function isCount(n: unknown): n is number {
  return Number.isInteger(n) && (n as number) >= 0;
}
