import type { DbSession } from '../db/engine';
import { engineFor } from '../db/engine-for';
import { planFor } from '../db/params';
import { sqlOnce, SqlPerRow } from '../db/run-sql';
import { dropTable, temporaryFrom, temporaryName } from '../db/tables';
import type { ExecOnDb } from '../script/ast';
import type { Command } from './command';

/**
 * EXEC ON DB [CONN] ( <native SQL> ) { PER_ROW } (docs/databases.md): runs SQL for its effects; the
 * dataset is unchanged. `{{field}}`, `#f()` and `@f()` are bind parameters. Without PER_ROW the SQL
 * runs once, with no row to read; with PER_ROW once per row, in one transaction, `#f()` computed per
 * row too (spec 4.4). `@pipelinedata()` names a temporary table holding the pipeline's rows.
 */
export const execOnDb: Command<ExecOnDb> = async (stmt, input, ctx) => {
  const engine = engineFor(ctx, stmt.connection);
  const plan = planFor(stmt.sql);
  const pipelineData = plan.usesPipelineData ? temporaryName('pipelinedata') : undefined;
  const table = pipelineData && engine.dialect.quote(pipelineData);
  let run: (db: DbSession) => Promise<unknown>;
  if (stmt.perRow) {
    const rows = new SqlPerRow(plan, ctx, input, table);
    run = (db) => rows.run(db, 0, input.rowCount, ctx.signal);
  } else {
    run = sqlOnce(
      plan,
      engine.dialect,
      ctx,
      'EXEC ON DB runs its SQL once without PER_ROW: add PER_ROW to run it per row, or use all rows through @pipelinedata()',
      table,
    );
  }
  if (pipelineData === undefined && !stmt.perRow) {
    await engine.session(run, ctx.signal);
    return;
  }
  await engine.transaction(async (db) => {
    if (pipelineData !== undefined) await temporaryFrom(db, pipelineData, input, ctx.signal);
    await run(db);
    if (table !== undefined) await dropTable(db, table);
  }, ctx.signal);
};
