import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { cancelled, ScriptError } from '../errors';
import type { Scope } from '../scope';
import type { DbSession, Dialect } from './engine';
import { atSql } from './errors';
import { renderSql, valuesOnce, type SqlPlan } from './params';

/** Rows run between two turns of the event loop (Ctrl-C and the kernel stay responsive). */
export const ROWS_PER_TURN = 1_000;

/**
 * A statement's SQL run once, outside any row (EXEC ON DB without PER_ROW, PUSH INTO DB's ON_INIT,
 * ON_COMPLETION and per-batch SQL): as a script when it has no parameters (a trigger's body keeps its
 * `;`), else statement by statement with the values computed now. `why` says what to write instead
 * of a `{{field}}`, which has no row to read.
 */
export function sqlOnce(
  plan: SqlPlan,
  dialect: Dialect,
  scope: Scope,
  why: string,
  pipelineTable?: string,
): (db: DbSession) => Promise<void> {
  if (plan.params.length === 0) {
    const script = renderSql(plan.whole, dialect, pipelineTable);
    return (db) => atSql(plan.text, () => db.script(script.sql), script);
  }
  const values = valuesOnce(
    plan,
    plan.params.map((_, i) => i),
    scope,
    why,
  );
  const statements = plan.statements.map((s) => renderSql(s, dialect, pipelineTable));
  return (db) =>
    atSql(plan.text, async () => {
      for (const s of statements)
        await atSql(
          plan.text,
          () =>
            db.exec(
              s.sql,
              s.params.map((i) => values[i]),
            ),
          s,
        );
    });
}

/**
 * A statement's SQL run once per row of a dataset (EXEC ON DB … PER_ROW, PUSH INTO DB's ON_UPSERT and
 * ON_DELETE): its parameters bound to the dataset once, `#f()` computed per row too (spec 4.4); each
 * unit of work prepares the statements once and runs them over its range of rows.
 */
export class SqlPerRow {
  private readonly values: ((row: Value[], r: number) => Value)[];

  constructor(
    private readonly plan: SqlPlan,
    scope: Scope,
    private readonly rows: Dataset,
    private readonly pipelineTable?: string,
  ) {
    this.values = plan.params.map((p) => p.value.bind(scope, rows, { fxByRow: true }));
  }

  /** `runRows`, an error the database raises placed in the SQL as the script wrote it. */
  run(...args: Parameters<SqlPerRow['runRows']>): Promise<void> {
    return atSql(this.plan.text, () => this.runRows(...args));
  }

  /**
   * Runs rows `start` to `end` (exclusive). A `timeout`
   * (PUSH INTO DB's TIMEOUT on SQLite, whose statements no timer can stop) is checked where the loop
   * yields, every ROWS_PER_TURN rows.
   */
  private async runRows(
    db: DbSession,
    start: number,
    end: number,
    signal: AbortSignal,
    timeout?: { seconds: number; until: number },
  ): Promise<void> {
    const { plan, rows } = this;
    const turn = async (r: number) => {
      if ((r - start) % ROWS_PER_TURN !== ROWS_PER_TURN - 1) return;
      await nextTurn();
      if (signal.aborted) throw cancelled();
      if (timeout && performance.now() > timeout.until)
        throw new ScriptError(`TIMEOUT ${timeout.seconds}: the rows took longer than ${timeout.seconds} s`, 'runtime');
    };
    if (plan.params.length === 0) {
      const script = renderSql(plan.whole, db.dialect, this.pipelineTable);
      for (let r = start; r < end; r++) {
        await atSql(plan.text, () => db.script(script.sql), script);
        await turn(r);
      }
      return;
    }
    const statements = plan.statements.map((s) => {
      const rendered = renderSql(s, db.dialect, this.pipelineTable);
      return {
        rendered,
        prepared: db.prepare(rendered.sql),
        values: rendered.params.map((i) => this.values[i]),
        args: rendered.params.map(() => null as Value),
      };
    });
    const reader = rows.reader();
    for (let r = start; r < end; r++) {
      const row = reader(r);
      for (const s of statements) {
        for (let k = 0; k < s.args.length; k++) s.args[k] = s.values[k](row, r);
        await atSql(plan.text, () => s.prepared.run(s.args), s.rendered);
      }
      await turn(r);
    }
  }
}
