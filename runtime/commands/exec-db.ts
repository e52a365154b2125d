import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import type { DbSession, Dialect } from '../db/engine';
import { engineFor } from '../db/engine-for';
import { cancelled } from '../db/errors';
import { planFor, renderSql, valuesOnce, type SqlPlan } from '../db/params';
import { dropTable, temporaryFrom, temporaryName } from '../db/tables';
import type { ExecOnDb } from '../script/ast';
import type { Command, CommandContext } from './command';

/** Rows run between two turns of the event loop (Ctrl-C and the kernel stay responsive). */
const ROWS_PER_TURN = 1_000;

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
  const run = stmt.perRow
    ? (db: DbSession) => perRow(db, plan, table, input, ctx)
    : await once(plan, table, engine.dialect, ctx);
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

/** The SQL run once: as a script when it has no parameters (a trigger's body keeps its `;`), else statement by statement. */
async function once(
  plan: SqlPlan,
  table: string | undefined,
  dialect: Dialect,
  ctx: CommandContext,
): Promise<(db: DbSession) => Promise<void>> {
  if (plan.params.length === 0) {
    const script = renderSql(plan.whole, dialect, table).sql;
    return (db) => db.script(script);
  }
  const all = plan.params.map((_, i) => i);
  const values = valuesOnce(
    plan,
    all,
    ctx,
    'EXEC ON DB runs its SQL once without PER_ROW: add PER_ROW to run it per row, or use all rows through @pipelinedata()',
  );
  const statements = plan.statements.map((s) => renderSql(s, dialect, table));
  return async (db) => {
    for (const s of statements)
      await db.exec(
        s.sql,
        s.params.map((i) => values[i]),
      );
  };
}

async function perRow(
  db: DbSession,
  plan: SqlPlan,
  table: string | undefined,
  input: Dataset,
  ctx: CommandContext,
): Promise<void> {
  const turn = async (r: number) => {
    if (r % ROWS_PER_TURN !== ROWS_PER_TURN - 1) return;
    await nextTurn();
    if (ctx.signal.aborted) throw cancelled();
  };
  if (plan.params.length === 0) {
    const script = renderSql(plan.whole, db.dialect, table).sql;
    for (let r = 0; r < input.rowCount; r++) {
      await db.script(script);
      await turn(r);
    }
    return;
  }
  const values = plan.params.map((p) => p.value.bind(ctx, input, { fxByRow: true }));
  const statements = plan.statements.map((s) => {
    const rendered = renderSql(s, db.dialect, table);
    return {
      prepared: db.prepare(rendered.sql),
      values: rendered.params.map((i) => values[i]),
      args: rendered.params.map(() => null as Value),
    };
  });
  const reader = input.reader();
  for (let r = 0; r < input.rowCount; r++) {
    const row = reader(r);
    for (const s of statements) {
      for (let k = 0; k < s.args.length; k++) s.args[k] = s.values[k](row, r);
      await s.prepared.run(s.args);
    }
    await turn(r);
  }
}
