import type { Dataset } from '../dataset/dataset';
import { PAGE_ROWS, type DbSession } from '../db/engine';
import { engineFor } from '../db/engine-for';
import { atSql } from '../db/errors';
import { planFor, renderSql, valuesOnce } from '../db/params';
import { dropTable, temporaryFrom, temporaryName } from '../db/tables';
import type { SelectDb } from '../script/ast';
import { concatDatasets } from '../sources/concat';
import { PagePipeline } from './apply-pipeline';
import type { Command } from './command';

/**
 * SELECT * FROM DB [CONN] ( <native SQL> ) { APPLY PIPELINE (…) } (docs/databases.md): the query's
 * rows become the dataset, typed from the engine's column types. They are read in pages (PostgreSQL
 * through a cursor); an inline APPLY PIPELINE runs once per page and the pages it returns are
 * stacked. `#f()`/`@f()` in the SQL are bind parameters computed once; `@pipelinedata()` is a
 * temporary table of the pipeline's rows, to join them with the database's.
 */
export const selectDb: Command<SelectDb> = async (stmt, input, ctx) => {
  const engine = engineFor(ctx, stmt.connection);
  const plan = planFor(stmt.sql);
  const pipelineData = plan.usesPipelineData ? temporaryName('pipelinedata') : undefined;
  const rendered = renderSql(plan.whole, engine.dialect, pipelineData && engine.dialect.quote(pipelineData));
  const { sql, params } = rendered;
  const values = valuesOnce(
    plan,
    params,
    ctx,
    'SELECT FROM DB runs its query once: join the pipeline rows through @pipelinedata() instead',
  );
  const parts: Dataset[] = [];
  const pipeline = stmt.pipeline && new PagePipeline(stmt.pipeline, ctx);
  const sent = withoutTrailingSemicolons(sql);
  const read = (db: DbSession) =>
    atSql(
      stmt.sql,
      () =>
        db.query(
          sent,
          values,
          async (page) => {
            if (!pipeline) {
              parts.push(page);
              return false;
            }
            const outcome = await pipeline.run(page);
            parts.push(outcome.dataset);
            return outcome.stop;
          },
          { signal: ctx.signal, pageRows: pipeline ? PAGE_ROWS : Infinity },
        ),
      rendered,
    );
  if (pipelineData === undefined) await engine.session(read, ctx.signal);
  else {
    await engine.transaction(async (db) => {
      const table = await temporaryFrom(db, pipelineData, input, ctx.signal);
      await read(db);
      await dropTable(db, table);
    }, ctx.signal);
  }
  return concatDatasets(parts);
};

/** One statement is prepared, not a script: a `;` ending it would be a second, empty one. */
function withoutTrailingSemicolons(sql: string): string {
  return sql.replace(/[\s;]+$/, '');
}
