import type { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import { cellShaper } from '../sources/files/shape-thread';
import { compileTx, transformColumn } from '../sources/tx';
import { atArgument } from '../at-argument';
import type { ApplyTx } from '../script/ast';
import type { Command } from './command';
import { floatsAsDecimal } from '../functions/json-format';

/**
 * APPLY TX <'path' | (path) | 'csv options'> { ON '<column>' } (docs/sources.md). Without ON the
 * documents of the `payload` column (SELECT FROM HTTP's response, or a one-column dataset's only
 * column) become the dataset; with ON each row's other columns are repeated on its document's rows.
 */
export const applyTx: Command<ApplyTx> = async (stmt, input, ctx) => {
  const on = stmt.tx.on;
  const plan = compileTx(stmt.tx.path.value, stmt.tx.path.pos);
  const floatDecimal = floatsAsDecimal(ctx.session);
  // Without ON each document is an answer the path must find; with ON a row's document may have
  // nothing for it (the row stays).
  const options = { floatDecimal, mustSelect: on === undefined };
  // With ON, what goes wrong is about that column: it is missing, or its documents do not parse.
  return atArgument(on, () =>
    transformColumn(
      input,
      on ? on.value : documentColumn(input),
      plan,
      options,
      on !== undefined,
      true,
      cellShaper(plan, ctx.signal),
    ),
  );
};

function documentColumn(input: Dataset): string {
  if (input.has('payload')) return 'payload';
  if (input.columns.length === 1) return input.columns[0].name;
  if (input.columns.length === 0)
    throw new ScriptError('the dataset is empty: read a document first (SELECT * FROM HTTP …)', 'runtime');
  throw new ScriptError(
    `name the document column with ON '<column>': there is no payload column (columns: ${input.columns.map((c) => c.name).join(', ')})`,
    'runtime',
  );
}
