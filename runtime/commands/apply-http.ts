import { Dataset } from '../dataset/dataset';
import type { Column, Value } from '../dataset/types';
import { ScriptError, toScriptError } from '../errors';
import { compileFilter } from '../expr';
import { compileTemplate, evaluateText, type BatchTextFn, type CompileOptions } from '../functions/evaluate';
import { buildRequest } from '../http/build';
import type { HttpRequest, HttpResponse } from '../http/request';
import type { ApplyHttp, Text } from '../script/ast';
import { concatDatasets } from '../sources/concat';
import { checkPaging, MAX_PAGES, Pager, type PagingSpec } from '../sources/http/paging';
import { readPages } from '../sources/http/read';
import { compileTx, type TxOptions, type TxPlan } from '../sources/tx';
import { atArgument } from '../at-argument';
import { Tracer } from '../targets/trace';
import type { Command, CommandContext } from './command';
import { HEADERS_TEMPLATE, payloadTemplate, ReadCalls, URL_TEMPLATE } from './http-options';
import { recordLastHttp, responseRow, shapedPage } from './select-http';
import { floatsAsDecimal } from '../functions/json-format';

type Processing = NonNullable<ApplyHttp['options']['processing']>;

/**
 * APPLY HTTP [conn] (<verb> <path>) { APPLY TX … } WITH … (reference A; docs/transformations.md). A call's
 * response becomes rows as in SELECT FROM HTTP: the APPLY TX path's records, or without one a single row
 * (payload, status, headers, elapsed_ms). PROCESSING says what the pipeline does with them:
 * - 'continue' (default): one call; the dataset stays as it was.
 * - 'replace': one call; its rows become the dataset.
 * - 'enhance': one call; the columns of its first row are added to every row.
 * - 'inner join' / 'left join': one call per row (the WHEN filter chooses which rows call; `#` functions
 *   are evaluated per call, spec 4.4); each row is repeated once per row of its response, with the
 *   response's columns added. A row whose response has no rows is dropped (inner) or kept with nulls
 *   (left); a row WHEN did not choose is kept with nulls in both.
 * With PAGING each call reads every page as SELECT FROM HTTP does; its rows are those of all its pages.
 * In one-call modes `{{field}}` reads the first row. SHIFT_ROWS n skips the first n rows of each
 * response. A failed call stops the statement, unless its status is in CONTINUE_ON_HTTPERROR or
 * CONTINUE_ON_ERRORS is set: then the call counts as having no rows, and a warning says how many failed.
 */
export const applyHttp: Command<ApplyHttp> = async (stmt, input, ctx) => {
  const processing: Processing = stmt.options.processing ?? 'continue';
  const caller = new Caller(stmt, input, ctx);
  try {
    const out =
      processing === 'inner join' || processing === 'left join'
        ? await join(stmt, input, caller, processing === 'left join', ctx)
        : await once(input, caller, processing);
    if (caller.truncated) ctx.emit({ kind: 'warning', text: `paging stopped after ${MAX_PAGES} pages, the maximum` });
    return out;
  } finally {
    await caller.tracer?.flush();
  }
};

async function once(input: Dataset, caller: Caller, processing: Processing): Promise<Dataset | undefined> {
  const rows = input.rows(0, Math.min(1, input.rowCount));
  const response = await caller.call(rows, 0);
  if (processing === 'continue') return undefined;
  const got = response ?? Dataset.empty();
  if (processing === 'replace') return got;
  return enhance(input, got);
}

/** Makes the statement's calls: templates bound once, retries and error rules applied. */
class Caller {
  private readonly target: BatchTextFn;
  private readonly payload?: BatchTextFn;
  private readonly headers?: BatchTextFn;
  private readonly contentType?: string;
  private readonly plan?: TxPlan;
  private readonly txOptions: TxOptions;
  private readonly calls: ReadCalls;
  private readonly paging: PagingSpec;
  failures = 0;
  firstFailure?: string;
  /** A call's paging reached MAX_PAGES. */
  truncated = false;
  /** TRACE INTO: every call recorded in a database table. */
  readonly tracer?: Tracer;

  constructor(
    private readonly stmt: ApplyHttp,
    input: Dataset,
    private readonly ctx: CommandContext,
  ) {
    const o = stmt.options;
    // Bound over a batch of one row: `#` functions run at each call (spec 4.4), fields read that row.
    const bind = (t: Text, options?: CompileOptions) =>
      atArgument(t, () => compileTemplate(t, options).bindBatch(ctx, input, { fxByRow: true }));
    this.target = bind(stmt.command.target, URL_TEMPLATE);
    this.contentType = o.contentType && evaluateText(o.contentType, ctx);
    this.payload = o.payload && bind(o.payload, payloadTemplate(o.payload, this.contentType));
    this.headers = o.headers && bind(o.headers, HEADERS_TEMPLATE);
    this.plan = stmt.tx ? compileTx(stmt.tx.path.value, stmt.tx.path.pos) : undefined;
    // The one call of 'replace' or 'enhance' answers for the dataset: a plain path must find
    // something in it; a join row's answer may have nothing for that row.
    const oneCall = o.processing === 'replace' || o.processing === 'enhance';
    this.txOptions = { floatDecimal: floatsAsDecimal(ctx.session), mustSelect: oneCall };
    // An unknown connection, or one of another kind, fails here, before the first row (or with none).
    void this.connection;
    this.calls = new ReadCalls(o, ctx);
    this.tracer = this.calls.tracer;
    this.paging = checkPaging({
      mode: o.paging?.mode ?? 'none',
      param: o.paging?.param && evaluateText(o.paging.param, ctx),
      path: o.paging?.path?.value,
      pathPos: o.paging?.path?.pos,
      pos: o.paging?.pos,
    });
  }

  private get connection() {
    const c = this.stmt.connection;
    return c && atArgument(c, () => this.ctx.session.connections.getOf(c.name, 'http'));
  }

  /**
   * The response's rows — with PAGING, those of every page, as SELECT FROM HTTP reads them — or
   * undefined when the call failed and the options say to go on; a page failing after others ends the
   * paging, the rows of the pages before it kept.
   */
  async call(rows: Value[][], index: number): Promise<Dataset | undefined> {
    const { stmt, ctx } = this;
    const o = stmt.options;
    const parts: Dataset[] = [];
    try {
      const request = buildRequest({
        connection: this.connection,
        method: stmt.command.verb,
        target: this.target(rows, index),
        targetPos: stmt.command.target.pos,
        headers: this.headers?.(rows, index),
        headersPos: o.headers?.pos,
        payload: this.payload?.(rows, index),
        contentType: this.contentType,
        timeout: o.timeout,
      });
      const pager = new Pager(this.paging, request.url);
      const plan = this.plan;
      const { path, pathPos } = this.paging;
      const pagingPath = path === undefined ? undefined : { path, pos: pathPos };
      await readPages(
        request,
        pager,
        (r) => this.send(r),
        ctx.signal,
        this.txOptions.floatDecimal,
        async (page) => {
          recordLastHttp(ctx.run, page);
          const data = plan
            ? await shapedPage(page, plan, this.txOptions, pagingPath, ctx.signal)
            : responseRow(page, o.returnBytes ?? false);
          parts.push(o.shiftRows ? data.slice(Math.min(o.shiftRows, data.rowCount), data.rowCount) : data);
          const records = plan ? () => data.rowCount : () => page.bodyRecords();
          return { records, stop: false };
        },
      );
      this.truncated ||= pager.truncated;
    } catch (e) {
      const error = toScriptError(e);
      if (error.kind === 'cancelled' || !o.continueOnErrors)
        throw error.position ? error : error.locate(stmt.command.target.pos);
      this.failed(error.message);
    }
    return parts.length > 0 ? concatDatasets(parts) : undefined;
  }

  /** A page's response; a status CONTINUE_ON_HTTPERROR lists is a failure let through (undefined). */
  private async send(request: HttpRequest): Promise<HttpResponse | undefined> {
    const answer = await this.calls.send(request);
    return 'letThrough' in answer ? this.failed(answer.letThrough) : answer;
  }

  private failed(why: string): undefined {
    this.failures++;
    this.firstFailure ??= why;
    return undefined;
  }
}

async function join(
  stmt: ApplyHttp,
  input: Dataset,
  caller: Caller,
  left: boolean,
  ctx: CommandContext,
): Promise<Dataset> {
  const when =
    stmt.options.when && compileFilter(stmt.options.when.value, stmt.options.when.pos).bind(input.columns, ctx, input);
  const read = input.reader();
  const parts: { row: number; response?: Dataset }[] = [];
  for (let r = 0; r < input.rowCount; r++) {
    if (ctx.signal.aborted) throw new ScriptError('cancelled', 'cancelled');
    const row = read(r).slice();
    if (when && !when(row)) {
      parts.push({ row: r });
      continue;
    }
    const response = await caller.call([row], r);
    if (!left && (!response || response.rowCount === 0)) continue;
    parts.push({ row: r, response });
  }
  if (caller.failures)
    ctx.emit({
      kind: 'warning',
      text: `${caller.failures} of the calls failed and were let through (first: ${caller.firstFailure})`,
    });
  const responseColumns = concatDatasets(
    parts.flatMap((p) => (p.response ? [Dataset.fromRows(p.response.columns, [])] : [])),
  ).columns;
  const columns = joinedColumns(input.columns, responseColumns);
  const out: Value[][] = [];
  for (const p of parts) {
    const base = input.row(p.row);
    const answer = p.response;
    if (!answer || answer.rowCount === 0) {
      out.push([...base, ...responseColumns.map(() => null)]);
      continue;
    }
    const ordinals = responseColumns.map((c) => answer.indexOf(c.name));
    for (let k = 0; k < answer.rowCount; k++)
      out.push([...base, ...ordinals.map((i) => (i < 0 ? null : answer.cell(k, i)))]);
  }
  return Dataset.fromRows(columns, out);
}

function enhance(input: Dataset, response: Dataset): Dataset {
  const columns = joinedColumns(input.columns, response.columns);
  const first = response.rowCount ? response.row(0) : response.columns.map(() => null);
  return Dataset.fromRows(
    columns,
    input.rows().map((r) => [...r, ...first]),
  );
}

/** The input's columns, then the response's; a response column named like an input column gets a suffix. */
function joinedColumns(inputColumns: Column[], responseColumns: Column[]): Column[] {
  const taken = new Set(inputColumns.map((c) => c.name.toLowerCase()));
  const added = responseColumns.map((c) => {
    let name = c.name;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${c.name}_${n}`;
    taken.add(name.toLowerCase());
    return { ...c, name };
  });
  return [...inputColumns, ...added];
}
