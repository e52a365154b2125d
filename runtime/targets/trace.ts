import { Dataset } from '../dataset/dataset';
import type { Column, Value } from '../dataset/types';
import type { Engine } from '../db/engine';
import { engineFor } from '../db/engine-for';
import { planFor, requireNoRow, type SqlPlan } from '../db/params';
import { sqlOnce } from '../db/run-sql';
import { addColumns, createTable, matchColumns, tableName } from '../db/tables';
import { ScriptError, toScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import { decodeBody, describeCall, type HttpRequest, type HttpResponse } from '../http/request';
import type { Scope } from '../scope';
import type { TraceSpec } from '../script/ast';
import { MASK, maskValues, SECRET_HEADER } from '../workspace/redact';
import { TraceStage } from './trace-stage';

const EXEC_WHY = 'TRACE … EXEC runs after each batch of traced calls, outside any row';

/** Rows kept before they go to the trace table in one bulk insert. */
const TRACE_BATCH = 500;

const text = { base: 'string' } as const;
const COLUMNS: Column[] = [
  { name: 'time', type: { base: 'datetime' } },
  { name: 'method', type: text },
  { name: 'url', type: text },
  { name: 'status', type: { base: 'int' } },
  { name: 'duration_ms', type: { base: 'int' } },
  { name: 'request_headers', type: text },
  { name: 'request_body', type: text },
  { name: 'response_headers', type: text },
  { name: 'response_body', type: text },
];
const TRACKING: Column[] = [
  { name: 'execution_id', type: text },
  { name: 'pipeline', type: text },
  { name: 'execution_date', type: { base: 'datetime' } },
];

/**
 * TRACE INTO [conn] TABLE 't' { WITH_PAYLOAD } { ADD_TRACKING_FIELDS } { TRUNCATE | TRUNCATE_APPEND }
 * { EXEC (<sql>) } (spec §4.2; docs/push.md): one row per HTTP call — time, method, URL, status,
 * duration, request headers (secret values masked), request body, response headers, and the response
 * body only WITH_PAYLOAD — inserted in batches into a SQLite or PostgreSQL table, created from these
 * columns when missing. EXEC runs on the trace database after each batch. With STAGE ON, each batch
 * goes through a file of the stage (trace-stage.ts).
 */
export class Tracer {
  private rows: Value[][] = [];
  private prepared = false;
  /** Whether the table needs no emptying any more: TRUNCATE and TRUNCATE_APPEND empty it once. */
  private emptied: boolean;
  private readonly table: string;
  private readonly engine: Engine;
  private readonly columns: Column[];
  /** EXEC's SQL, its functions bind parameters computed at each batch. */
  private readonly exec?: SqlPlan;
  private readonly stage?: TraceStage;

  constructor(
    private readonly spec: TraceSpec,
    private readonly scope: Scope,
    private readonly signal: AbortSignal,
  ) {
    if (!spec.connection)
      throw new ScriptError('TRACE INTO needs a database connection: TRACE INTO [conn] TABLE …', 'semantic', spec.pos);
    if (!spec.table) throw new ScriptError("TRACE INTO needs TABLE '<table>'", 'semantic', spec.pos);
    this.engine = engineFor(scope, spec.connection);
    this.exec = spec.exec && planFor(spec.exec);
    if (this.exec) requireNoRow(this.exec, EXEC_WHY);
    this.table = evaluateText(spec.table, scope);
    this.columns = spec.addTrackingFields ? [...COLUMNS, ...TRACKING] : COLUMNS;
    this.stage = spec.stage && new TraceStage(spec.stage, this.table, scope);
    this.emptied = !spec.truncate && !spec.truncateAppend;
  }

  /** Records one call; the rows go to the table in batches. */
  async record(request: HttpRequest, response: HttpResponse | undefined, started: Date): Promise<void> {
    const row: Value[] = [
      started,
      request.method,
      describeCall(request).slice(request.method.length + 1),
      response ? response.status : null,
      response ? Math.round(response.elapsedMs) : null,
      JSON.stringify(masked(request.headers, request.secrets)),
      request.body ?? null,
      // An answer's secrets too: a session cookie set by a login, a token an API hands out.
      response ? JSON.stringify(masked(response.headers)) : null,
      // A server may echo the request's headers in its answer.
      response && this.spec.withPayload ? maskValues(decodeBody(response), request.secrets) : null,
    ];
    if (this.spec.addTrackingFields)
      row.push(this.scope.run.executionId, this.scope.run.pipeline, new Date(Number(this.scope.run.executionId)));
    this.rows.push(row);
    if (this.rows.length >= TRACE_BATCH) await this.flush();
  }

  /**
   * Empties the table (TRUNCATE, TRUNCATE_APPEND) before the statement's first call, so that a push
   * whose sections trace into one table empties it once, not between them.
   */
  async prepare(): Promise<void> {
    if (this.emptied) return;
    await this.engine.transaction(async (db) => {
      const table = tableName(this.table, db.dialect);
      if (await db.columns(table)) await db.script(db.dialect.truncate(table.sql));
    }, this.signal);
    this.emptied = true;
  }

  /** Writes the rows kept so far, through the stage when there is one; the statement calls it once more at its end. */
  async flush(): Promise<void> {
    if (this.rows.length === 0 && this.prepared) return;
    const rows = this.rows;
    this.rows = [];
    if (!this.stage || rows.length === 0) return this.load(rows);
    const path = await this.stage.put(this.columns, rows);
    try {
      await this.load(await this.stage.take(path, this.columns, this.signal));
    } catch (e) {
      const error = toScriptError(e);
      if (error.kind === 'cancelled') throw error;
      throw new ScriptError(
        `TRACE: ${rows.length} traced calls stay in the stage, in ${this.stage.where(path)}: loading them into ${this.table} failed: ${error.message}`,
        error.kind,
      );
    }
    await this.stage.remove(path);
  }

  /** One batch into the table, in one transaction: created or widened first, emptied first by TRUNCATE, then EXEC. */
  private async load(rows: Value[][]): Promise<void> {
    const data = Dataset.fromRows(this.columns, rows);
    await this.engine.transaction(async (db) => {
      const table = tableName(this.table, db.dialect);
      let columns = await db.columns(table);
      if (!this.emptied && columns) await db.script(db.dialect.truncate(table.sql));
      if (!columns) columns = await createTable(db, table, data);
      const { missing } = matchColumns(data, columns);
      if (missing.length) columns = columns.concat(await addColumns(db, table, data, missing));
      if (data.rowCount) await db.insert(table.sql, matchColumns(data, columns).rows, this.signal);
      if (this.exec && data.rowCount) await sqlOnce(this.exec, db.dialect, this.scope, EXEC_WHY)(db);
    }, this.signal);
    this.prepared = true;
    this.emptied = true;
  }
}

/**
 * Headers with the values of secret-named ones, and of those whose value is a secret of the call (its
 * connection's headers and auth, whatever their names), as `****`.
 */
function masked(headers: Readonly<Record<string, string>>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SECRET_HEADER.test(k) || secrets.includes(v) ? MASK : v;
  return out;
}
