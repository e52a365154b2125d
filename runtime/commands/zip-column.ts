import { Dataset } from '../dataset/dataset';
import { formatValue } from '../dataset/format-value';
import { ScriptError } from '../errors';
import type { ZipColumn } from '../script/ast';
import { buildDocument, fragmentProblem } from '../writers';
import type { Command } from './command';

/**
 * ZIP COLUMN '<col>' FORMAT CSV|JSON|XML [BATCH N] (spec 4.2): the column's fragments (usually
 * from ADD COLUMN … FORMAT) become complete documents, one per batch of N rows (all rows without
 * BATCH). The result has that one column and one row per document, ready for PUSH … BATCH 1. Null
 * fragments (rows WHEN skipped) are left out; an empty pipeline gives no document.
 */
export function zipColumnOf(stmt: ZipColumn, input: Dataset): Dataset {
  const ordinal = input.indexOf(stmt.column.value);
  if (ordinal < 0) {
    const known = input.columns.map((c) => c.name).join(', ') || '(none)';
    throw new ScriptError(`unknown column '${stmt.column.value}' (columns: ${known})`, 'runtime', stmt.column.pos);
  }
  const column = input.columns[ordinal];
  const size = stmt.batch ?? Math.max(1, input.rowCount);
  const values = input.vector(ordinal);
  // Fragments FORMAT wrote in this format are well-formed; any other value is parsed (fragmentProblem).
  const written = column.writtenAs === stmt.format;
  const documents: string[] = [];
  for (let start = 0; start < input.rowCount; start += size) {
    const fragments: string[] = [];
    const end = Math.min(start + size, input.rowCount);
    for (let r = start; r < end; r++) {
      const v = values.get(r);
      if (v === null) continue;
      const fragment = typeof v === 'string' ? v : formatValue(v, column.type);
      const problem = written && typeof v === 'string' ? undefined : fragmentProblem(stmt.format, fragment);
      if (problem !== undefined)
        throw new ScriptError(
          `column '${column.name}', row ${r + 1}: '${shortened(fragment)}' ${problem}`,
          'runtime',
          stmt.column.pos,
        );
      fragments.push(fragment);
    }
    documents.push(buildDocument(stmt.format, fragments));
  }
  return new Dataset([{ name: column.name, type: { base: 'string' } }], [documents]);
}

/** A value quoted in an error: its first 40 characters. */
function shortened(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40).trimEnd()}…` : text;
}

export const zipColumn: Command<ZipColumn> = async (stmt, input) => zipColumnOf(stmt, input);
