import { setImmediate as nextTurn } from 'node:timers/promises';
import { Dataset } from '../dataset/dataset';
import type { BulkRows, DbSession, Engine, TableName } from '../db/engine';
import { engineFor } from '../db/engine-for';
import { planFor, requireNoRow, type SqlPlan } from '../db/params';
import { sqlOnce, SqlPerRow } from '../db/run-sql';
import {
  addColumns,
  createTable,
  dropTable,
  matchColumns,
  primaryKeyOf,
  showTable,
  tableName,
  temporaryFrom,
  temporaryName,
} from '../db/tables';
import { deleteByKeys, isPrimaryKey, tableKeys, upsertRows } from '../db/upsert';
import { cancelled, ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import { backoff, sleep } from '../http/retry';
import type { PushDb, RetryPolicy, Text } from '../script/ast';
import { batchCount } from '../targets/batches';
import { failPush, finishPush, outcomeOptions } from '../targets/outcome';
import {
  finishProgress,
  progressNotes,
  readProgress,
  writeProgress,
  type ProgressNotes,
  type PushProgress,
} from '../targets/resume';
import { atArgument } from '../at-argument';
import { counted } from '../util/words';
import type { Command, CommandContext } from './command';
import { progressLine } from '../targets/progress';

type Stream = 'upsert' | 'delete';

/** Rows per transaction when a section gives no BATCH, and always for AUTO_MERGE (docs/databases.md). */
export const DEFAULT_BATCH = 50_000;

/** What one batch changed in the table AUTO_MERGE writes (zeros for SQL of a section). */
interface BatchCounts {
  inserted: number;
  updated: number;
  deleted: number;
}

/** One stream played batch by batch, each batch in a transaction of its own. */
interface Player {
  stream: Stream;
  /** 'AUTO_MERGE', 'ON_UPSERT' or 'ON_DELETE', for messages. */
  by: string;
  rows: Dataset;
  size: number;
  /** Names the player in the resume record: the same target playing the same log resumes. */
  id: string;
  timeout?: number;
  play(db: DbSession, start: number, end: number, signal: AbortSignal, until?: number): Promise<BatchCounts>;
}

interface Tally extends BatchCounts {
  /** Rows of each stream a resumed push skips: an earlier push of the log committed them. */
  resumed: Partial<Record<Stream, number>>;
  rows: number;
  total: number;
  transactions: number;
  retries: number;
  started: number;
  shown: number;
}

/**
 * PUSH INTO DB [CONN] { TABLE '…' AUTO_MERGE } { ON_UPSERT (<sql>) … } { ON_DELETE (<sql>) … }
 * { ON_INIT (<sql>) } { ON_COMPLETION (<sql>) } { WITH … } (reference A; docs/databases.md). Plays the
 * run's change log (from CAPTURE or LOAD; with neither, the whole dataset as upserts): ON_INIT, then
 * the upsert stream and the delete stream in batches, each batch one transaction, then ON_COMPLETION
 * with @success. A stream with its own section runs that SQL per row (or once per batch over
 * @pipelinedata()); else AUTO_MERGE merges it into TABLE by the log's key columns. The dataset is left
 * as it was.
 */
export const pushDb: Command<PushDb> = async (stmt, input, ctx) => {
  const log = ctx.run.changeLog;
  const upserts = log?.upserts ?? input;
  const deletes = log?.deletes ?? Dataset.fromRows(input.columns, []);
  const engine = engineFor(ctx, stmt.connection);
  const outcome = outcomeOptions(stmt.options, ctx);
  const table = stmt.table && atArgument(stmt.table, () => tableName(evaluateText(stmt.table!, ctx), engine.dialect));
  // Every SQL text is compiled before anything runs: a mistake in one writes nothing.
  const init = stmt.onInit && initSql(stmt.onInit, engine, ctx);
  const completion = stmt.onCompletion && planFor(stmt.onCompletion);
  if (completion) requireNoRow(completion, 'ON_COMPLETION runs once, after the streams');
  const sections = [
    { stream: 'upsert' as const, by: 'ON_UPSERT', section: stmt.onUpsert, rows: upserts },
    { stream: 'delete' as const, by: 'ON_DELETE', section: stmt.onDelete, rows: deletes },
  ].map((s) => s.section && sqlPlayer(s.stream, s.by, s.section, s.rows, stmt, engine, ctx));

  const tally: Tally = {
    inserted: 0,
    updated: 0,
    deleted: 0,
    resumed: {},
    rows: 0,
    total: 0,
    transactions: 0,
    retries: 0,
    started: performance.now(),
    shown: 0,
  };
  const progressId = `push-db-${ctx.run.executionId}-${stmt.pos.offset}`;
  const progress = await readProgress(log, ctx.session.workspace);
  const notes = progressNotes(log, progress);
  let failure: { error: unknown } | undefined;
  let players: Player[] = [];
  try {
    if (init) await inPart('ON_INIT', () => engine.session(init, ctx.signal));
    const merged = table && (await prepareTable(table, upserts, log?.keys ?? [], engine, ctx));
    players = [
      sections[0] ?? (merged && upsertPlayer(merged, upserts, stmt)),
      sections[1] ?? (merged && deletePlayer(merged, deletes, stmt)),
    ].filter((p): p is Player => p !== undefined);
    tally.total = players.reduce((n, p) => n + p.rows.rowCount, 0);
    for (const p of players) await playStream(p, engine, progress, notes, tally, stmt.options.retry, ctx, progressId);
  } catch (error) {
    failure = { error };
  }
  await notes.stop();
  report(ctx, progressId, tally, true);
  // ON_COMPLETION is the push's `finally`, except after Ctrl-C: the user asked for nothing more to run.
  if (completion && !ctx.signal.aborted) {
    try {
      await complete(completion, failure === undefined, engine, ctx);
    } catch (error) {
      if (failure) ctx.emit({ kind: 'warning', text: `${(error as Error).message} (after the push had failed)` });
      else failure = { error };
    }
  }
  if (failure) {
    await writeProgress(log, progress);
    await failPush(log, outcome, failure.error, (r) => ctx.emit(r));
  }
  await finishProgress(log, progress, ctx.run);
  ctx.emit({ kind: 'message', text: summary(stmt, table, players, tally, upserts.rowCount, deletes.rowCount) });
  await finishPush(log, outcome, (r) => ctx.emit(r));
};

/** ON_INIT: once, before the streams, each statement committing as the engine does. */
function initSql(text: Text, engine: Engine, ctx: CommandContext): (db: DbSession) => Promise<void> {
  return sqlOnce(planFor(text), engine.dialect, ctx, 'ON_INIT runs once, before the streams');
}

/** ON_COMPLETION with `@success` set for it alone. */
async function complete(plan: SqlPlan, success: boolean, engine: Engine, ctx: CommandContext): Promise<void> {
  const variables = ctx.run.pipelineVariables;
  variables.set('success', success);
  let run;
  try {
    run = sqlOnce(plan, engine.dialect, ctx, 'ON_COMPLETION runs once, after the streams');
  } finally {
    variables.delete('success');
  }
  await inPart('ON_COMPLETION', () => engine.session(run, ctx.signal));
}

/** A database error of ON_INIT or ON_COMPLETION, saying which. */
async function inPart(part: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (e) {
    throw e instanceof ScriptError && e.kind !== 'cancelled'
      ? new ScriptError(`${part}: ${e.message}`, e.kind, e.position)
      : e;
  }
}

/** The table AUTO_MERGE writes: created from the log's schema when missing, its missing columns added, and its keys. */
interface MergeTarget {
  table: TableName;
  /** Upsert columns written, under the table's spelling. */
  columns: string[];
  /** Their ordinals in the upsert stream. */
  ordinals: number[];
  /** Key columns under the table's spelling; empty: the upserts are appended. */
  keys: string[];
  /** The keys are the table's primary key (what an upsert row by row needs). */
  primaryKey: boolean;
}

async function prepareTable(
  table: TableName,
  upserts: Dataset,
  logKeys: readonly string[],
  engine: Engine,
  ctx: CommandContext,
): Promise<MergeTarget> {
  if (upserts.columns.length === 0)
    throw new ScriptError('AUTO_MERGE writes the change log, and it has no columns', 'runtime');
  for (const k of logKeys) upserts.require(k);
  return engine.transaction(async (db) => {
    let columns = await db.columns(table);
    if (!columns) columns = await createTable(db, table, upserts, logKeys);
    else {
      const { missing } = matchColumns(upserts, columns);
      if (missing.length) {
        columns = columns.concat(await addColumns(db, table, upserts, missing));
        ctx.emit({
          kind: 'message',
          text: `PUSH INTO DB: column ${missing.map((o) => upserts.columns[o].name).join(', ')} added to ${showTable(table)}`,
        });
      }
    }
    const { rows } = matchColumns(upserts, columns);
    // A log captured without keys (or a dataset pushed without a log) is matched by the table's primary key.
    const keys = logKeys.length ? tableKeys(table, columns, logKeys) : primaryKeyOf(columns);
    for (const k of keys)
      if (!upserts.has(k))
        throw new ScriptError(`the change log has no column ${k} of the primary key of ${showTable(table)}`, 'runtime');
    return {
      table,
      columns: [...rows.columns],
      ordinals: [...rows.ordinals],
      keys,
      primaryKey: isPrimaryKey(keys, columns),
    };
  }, ctx.signal);
}

function upsertPlayer(target: MergeTarget, upserts: Dataset, stmt: PushDb): Player {
  const { table, keys, columns, ordinals } = target;
  const batch = (data: Dataset): BulkRows => ({ columns, data, ordinals });
  return {
    stream: 'upsert',
    by: 'AUTO_MERGE',
    rows: upserts,
    size: DEFAULT_BATCH,
    id: `${stmt.connection.name} AUTO_MERGE ${table.sql} ${DEFAULT_BATCH}`,
    play: async (db, start, end, signal) => {
      const rows = batch(upserts.slice(start, end));
      if (keys.length === 0) return { ...NONE, inserted: await db.insert(table.sql, rows, signal) };
      return { ...NONE, ...(await upsertRows(db, table, rows, keys, target.primaryKey, signal)) };
    },
  };
}

function deletePlayer(target: MergeTarget, deletes: Dataset, stmt: PushDb): Player {
  const { table, keys } = target;
  // The delete stream holds the keys (its other columns are null): only they are staged.
  const ordinals = keys.map((k) => deletes.indexOf(k));
  return {
    stream: 'delete',
    by: 'AUTO_MERGE',
    rows: deletes,
    size: DEFAULT_BATCH,
    id: `${stmt.connection.name} AUTO_MERGE ${table.sql} ${DEFAULT_BATCH}`,
    play: async (db, start, end, signal) => {
      if (keys.length === 0 || ordinals.includes(-1)) {
        throw new ScriptError(
          `the delete stream removes rows by key, and ${showTable(table)} has no key to match them by: capture ON KEYS, or give the table a primary key`,
          'runtime',
        );
      }
      const rows = { columns: keys, data: deletes.slice(start, end), ordinals };
      return { ...NONE, deleted: await deleteByKeys(db, table, rows, keys, signal) };
    },
  };
}

const NONE: BatchCounts = { inserted: 0, updated: 0, deleted: 0 };

/**
 * ON_UPSERT / ON_DELETE: the SQL runs once per row, `{{field}}` bound from the row, BATCH rows per
 * transaction; SQL naming @pipelinedata() runs once per batch instead, over a temporary table holding
 * the batch's rows.
 */
function sqlPlayer(
  stream: Stream,
  by: string,
  section: NonNullable<PushDb['onUpsert']>,
  rows: Dataset,
  stmt: PushDb,
  engine: Engine,
  ctx: CommandContext,
): Player {
  const size = section.batch ?? DEFAULT_BATCH;
  const plan = planFor(section.sql);
  const base = {
    stream,
    by,
    rows,
    size,
    timeout: section.timeout,
    id: `${stmt.connection.name} ${by} ${section.sql.value} ${size}`,
  };
  if (!plan.usesPipelineData) {
    const perRow = new SqlPerRow(plan, ctx, rows);
    return {
      ...base,
      play: async (db, start, end, signal, until) => {
        await perRow.run(
          db,
          start,
          end,
          signal,
          until === undefined ? undefined : { seconds: section.timeout!, until },
        );
        return NONE;
      },
    };
  }
  const temp = temporaryName('pipelinedata');
  const quoted = engine.dialect.quote(temp);
  const once = sqlOnce(
    plan,
    engine.dialect,
    ctx,
    `${by} names @pipelinedata(), so it runs once per batch: read the batch's rows from @pipelinedata()`,
    quoted,
  );
  return {
    ...base,
    play: async (db, start, end, signal) => {
      await temporaryFrom(db, temp, rows.slice(start, end), signal);
      await once(db);
      await dropTable(db, quoted);
      return NONE;
    },
  };
}

async function playStream(
  p: Player,
  engine: Engine,
  progress: PushProgress,
  notes: ProgressNotes,
  tally: Tally,
  retry: RetryPolicy | undefined,
  ctx: CommandContext,
  progressId: string,
): Promise<void> {
  const total = p.rows.rowCount;
  const batches = batchCount(total, p.size);
  const done = (progress.done[p.id] ??= {});
  const first = done[p.stream] ?? 0;
  if (first > 0 && first < batches) {
    ctx.emit({
      kind: 'message',
      text: `${p.stream} stream: resuming at batch ${first + 1} of ${batches} (batches before it were committed by an earlier push of this change log)`,
    });
  }
  const skipped = Math.min(total, first * p.size);
  tally.total -= skipped;
  if (skipped > 0) tally.resumed[p.stream] = skipped;
  const timeoutSql = p.timeout === undefined ? undefined : engine.dialect.statementTimeout(p.timeout * 1000);
  for (let b = first; b < batches; b++) {
    const start = b * p.size;
    const end = Math.min(total, start + p.size);
    const counts = await batchError(p, b, batches, () =>
      withRetries(retry, ctx.signal, tally, () =>
        engine.transaction(async (db) => {
          if (timeoutSql) await db.script(timeoutSql);
          const until = p.timeout !== undefined && !timeoutSql ? performance.now() + p.timeout * 1000 : undefined;
          return p.play(db, start, end, ctx.signal, until);
        }, ctx.signal),
      ),
    );
    // Noted only now that the batch is committed: a kill before the note sends it again (docs/push.md).
    done[p.stream] = b + 1;
    notes.done();
    tally.inserted += counts.inserted;
    tally.updated += counts.updated;
    tally.deleted += counts.deleted;
    tally.rows += end - start;
    tally.transactions++;
    report(ctx, progressId, tally, false);
    // better-sqlite3 is synchronous: a turn of the event loop between batches lets Ctrl-C in.
    await nextTurn();
    if (ctx.signal.aborted) throw cancelled();
  }
}

/** A batch's failure, saying which batch was rolled back and what stays committed. */
async function batchError<T>(p: Player, b: number, batches: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof ScriptError) || e.kind === 'cancelled') throw e;
    const start = b * p.size;
    const rows = `rows ${start + 1}–${Math.min(p.rows.rowCount, start + p.size)}`;
    const before =
      b > 0 ? `; the ${counted(b, 'batch', 'batches')} before it ${b === 1 ? 'stays' : 'stay'} committed` : '';
    throw new ScriptError(
      `${p.by}: ${p.stream} batch ${b + 1} of ${batches} (${rows}) was rolled back: ${e.message}${before}`,
      e.kind,
      e.position,
    );
  }
}

/** WITH RETRY: a batch that failed (and was rolled back) runs again after the policy's wait. */
async function withRetries<T>(
  policy: RetryPolicy | undefined,
  signal: AbortSignal,
  tally: Tally,
  work: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (!policy || attempt >= policy.count || !(e instanceof ScriptError) || e.kind !== 'runtime') {
        if (attempt === 0 || !(e instanceof ScriptError)) throw e;
        throw new ScriptError(`${e.message} (after ${counted(attempt, 'retry', 'retries')})`, e.kind, e.position);
      }
      tally.retries++;
      await sleep(backoff(policy, attempt), signal);
    }
  }
}

function report(ctx: CommandContext, id: string, t: Tally, done: boolean): void {
  const text = progressLine('PUSH INTO DB', t, details, done);
  if (text) ctx.emit({ kind: 'progress', id, text, done });
}

function details(t: Tally): string {
  return counted(t.transactions, 'transaction');
}

function summary(
  stmt: PushDb,
  table: TableName | undefined,
  players: readonly Player[],
  t: Tally,
  upserts: number,
  deletes: number,
): string {
  const stream = (name: Stream, rows: number, one: string) => {
    const p = players.find((x) => x.stream === name);
    if (rows === 0) return undefined;
    if (!p) return `${counted(rows, one)} not played (no ON_${name.toUpperCase()})`;
    const resumed = t.resumed[name] ?? 0;
    const before = resumed > 0 ? ` (${counted(resumed, 'more', 'more')} committed by an earlier push)` : '';
    return `${counted(rows - resumed, one)} by ${p.by}${before}`;
  };
  const streams = [stream('upsert', upserts, 'upsert'), stream('delete', deletes, 'delete')].filter(Boolean).join(', ');
  // A stream without rows (a dataset pushed without a change log has no deletes) shows no counts.
  const merged = players
    .filter((p) => p.by === 'AUTO_MERGE' && (p.stream === 'upsert' ? upserts : deletes) > 0)
    .map((p) => (p.stream === 'upsert' ? `${t.inserted} inserted, ${t.updated} updated` : `${t.deleted} deleted`));
  const into = table && merged.length ? ` (${showTable(table)}: ${merged.join(', ')})` : '';
  const retries = t.retries ? `, ${counted(t.retries, 'retry', 'retries')}` : '';
  return `PUSH INTO DB [${stmt.connection.name}]: ${streams || 'nothing to play'}${into} in ${counted(t.transactions, 'transaction')}${retries}`;
}
