import { Dataset } from '../dataset/dataset';
import { STRING } from '../dataset/types';
import { ScriptError, toScriptError, type Position } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { HttpOptions, SelectHttp } from '../script/ast';
import type { RunState } from '../scope';
import { concatDatasets } from '../sources/concat';
import { buildRequest } from '../http/build';
import type { HttpRequest, HttpResponse } from '../http/request';
import { Tracer } from '../targets/trace';
import { MAX_PAGES, Pager } from '../sources/http/paging';
import { readPages, type Page } from '../sources/http/read';
import { compileTx, transformParsed, transformText, type TxOptions, type TxPlan } from '../sources/tx';
import { shapePaged } from '../sources/files/shape-thread';
import { PagePipeline } from './apply-pipeline';
import { atArgument } from '../at-argument';
import type { Command, CommandContext } from './command';
import { HEADERS_TEMPLATE, ReadCalls, URL_TEMPLATE } from './http-options';
import { floatsAsDecimal } from '../functions/json-format';

/**
 * SELECT * FROM HTTP { [CONN] } (<verb> <path or URL>) { APPLY TX … } { WITH options }
 * { APPLY PIPELINE (…) } (docs/sources.md). Without APPLY TX each page is one row: payload, status,
 * headers (JSON), elapsed_ms. An inline APPLY PIPELINE runs once per page; pages are stacked.
 */
export const selectHttp: Command<SelectHttp> = async (stmt, _input, ctx) => {
  const { session } = ctx;
  rejectOtherOptions(stmt.options);
  const o = stmt.options;
  const { connection, command } = stmt;
  const http = connection && atArgument(connection, () => session.connections.getOf(connection.name, 'http'));
  const request = buildRequest({
    connection: http,
    method: command.verb,
    target: evaluateText(command.target, ctx, URL_TEMPLATE),
    targetPos: command.target.pos,
    headers: o.headers && evaluateText(o.headers, ctx, HEADERS_TEMPLATE),
    headersPos: o.headers?.pos,
    payload: o.payload && evaluateText(o.payload, ctx),
    contentType: o.contentType && evaluateText(o.contentType, ctx),
    timeout: o.timeout,
  });
  const pager = new Pager(
    {
      mode: o.paging?.mode ?? 'none',
      param: o.paging?.param && evaluateText(o.paging.param, ctx),
      path: o.paging?.path?.value,
      pathPos: o.paging?.path?.pos,
      pos: o.paging?.pos,
    },
    request.url,
  );
  const plan = stmt.tx ? compileTx(stmt.tx.path.value, stmt.tx.path.pos) : undefined;
  const pagingPath = o.paging?.path && { path: o.paging.path.value, pos: o.paging.path.pos };
  const txOptions: TxOptions = {
    rawCol: stmt.rawCol?.value,
    floatDecimal: floatsAsDecimal(session),
  };
  // Only the first answer must have a plain path: a later page without it is the paging's end.
  const firstPage: TxOptions = { ...txOptions, mustSelect: true };
  let pagesRead = 0;
  const parts: Dataset[] = [];
  const pipeline = stmt.pipeline && new PagePipeline(stmt.pipeline, ctx);
  const calls = new PageCalls(stmt, ctx);
  // A failed call (refused, timed out, an HTTP error status) is about the target. Errors of the inline
  // pipeline already carry their statement's position and keep it.
  try {
    await atArgument(command.target, () =>
      readPages(
        request,
        pager,
        (r) => calls.send(r),
        ctx.signal,
        txOptions.floatDecimal,
        async (page) => {
          recordLastHttp(ctx.run, page);
          const options = pagesRead++ === 0 ? firstPage : txOptions;
          const data = await calls.rows(() =>
            plan ? shapedPage(page, plan, options, pagingPath, ctx.signal) : responseRow(page, o.returnBytes ?? false),
          );
          if (!data) return { records: () => 0, stop: true };
          const records = plan ? () => data.rowCount : () => page.bodyRecords();
          if (!pipeline) {
            parts.push(data);
            return { records, stop: false };
          }
          const outcome = await pipeline.run(data);
          parts.push(outcome.dataset);
          return { records, stop: outcome.stop };
        },
      ),
    );
  } finally {
    await calls.tracer?.flush();
  }
  if (calls.letThrough)
    ctx.emit({ kind: 'warning', text: `${calls.letThrough} was let through; the read stops there` });
  if (pager.truncated) ctx.emit({ kind: 'warning', text: `paging stopped after ${MAX_PAGES} pages, the maximum` });
  return concatDatasets(parts);
};

/**
 * The calls of a read with the APPLY HTTP options reference.md gives it: RETRY_ON / RETRY_ONREGEX
 * (RETRY_PATH, RETRY_INTERVAL, RETRY_COUNT) repeat a call whose answer says to try again; a failure
 * CONTINUE_ON_HTTPERROR lists, or any with CONTINUE_ON_ERRORS, ends the read with the pages so far;
 * TRACE INTO records every call.
 */
class PageCalls {
  private readonly calls: ReadCalls;
  readonly tracer?: Tracer;
  /** The failure let through, which ended the read. */
  letThrough?: string;

  constructor(
    private readonly stmt: SelectHttp,
    ctx: CommandContext,
  ) {
    this.calls = new ReadCalls(stmt.options, ctx);
    this.tracer = this.calls.tracer;
  }

  async send(request: HttpRequest): Promise<HttpResponse | undefined> {
    try {
      const answer = await this.calls.send(request);
      return 'letThrough' in answer ? this.failed(answer.letThrough) : answer;
    } catch (e) {
      return this.failedWith(e);
    }
  }

  /** A page's rows, or undefined when reading them failed and CONTINUE_ON_ERRORS lets that through. */
  async rows(read: () => Dataset | Promise<Dataset>): Promise<Dataset | undefined> {
    try {
      return await read();
    } catch (e) {
      return this.failedWith(e);
    }
  }

  private failedWith(e: unknown): undefined {
    const error = toScriptError(e);
    if (error.kind === 'cancelled' || !this.stmt.options.continueOnErrors) throw error;
    return this.failed(error.message);
  }

  private failed(why: string): undefined {
    this.letThrough = why;
    return undefined;
  }
}

export function pageRows(page: Page, plan: TxPlan, options: TxOptions): Dataset {
  const source = { ...options, source: page.call, mediaType: page.response.mediaType };
  if (plan.kind === 'csv') return transformText(page.text(), plan, source);
  // 204 No Content, or an empty body: an API's way to say "nothing (more)", not a broken document.
  if (page.isEmpty()) return Dataset.empty();
  const { root, kind } = page.document();
  return transformParsed(root, kind, plan, source);
}

/**
 * A page's rows as pageRows gives them, a large document parsed and shaped in a worker thread
 * (shape-thread.ts), which also reads the value at PAGING_PATH (`paging`) for the pager: the page then
 * holds it, and its document is never parsed here.
 */
export async function shapedPage(
  page: Page,
  plan: TxPlan,
  options: TxOptions,
  paging: { path: string; pos?: Position } | undefined,
  signal: AbortSignal,
): Promise<Dataset> {
  if (plan.kind === 'csv' || page.isEmpty()) return pageRows(page, plan, options);
  const { mediaType } = page.response;
  const shaped = await shapePaged(
    { of: 'answer', text: page.text(), mediaType, call: page.call, plan, options, paging },
    signal,
  );
  if (paging && shaped.paged) page.knowValueAt(paging.path, shaped.paged);
  return shaped.rows;
}

export function responseRow(page: Page, returnBytes: boolean): Dataset {
  const r = page.response;
  return Dataset.fromRows(
    [
      { name: 'payload', type: returnBytes ? { base: 'bytes' } : STRING },
      { name: 'status', type: { base: 'int' } },
      { name: 'headers', type: STRING },
      { name: 'elapsed_ms', type: { base: 'int' } },
    ],
    [
      [
        returnBytes ? new Uint8Array(r.body) : page.text(),
        r.status,
        JSON.stringify(r.headers),
        Math.round(r.elapsedMs),
      ],
    ],
  );
}

export function recordLastHttp(run: RunState, page: Page): void {
  const r = page.response;
  run.lastHttp = {
    status: r.status,
    headers: r.headers,
    content: page.text(),
    mediaType: r.mediaType,
    byteCount: r.body.length,
  };
}

/** Options of the shared HTTP option set that give SELECT FROM HTTP no meaning: it reads once (per page). */
function rejectOtherOptions(o: HttpOptions): void {
  const applyOnly: [keyof HttpOptions, string][] = [
    ['processing', 'PROCESSING'],
    ['when', 'WHEN'],
    ['shiftRows', 'SHIFT_ROWS'],
  ];
  for (const [key, name] of applyOnly) {
    if (o[key] !== undefined)
      throw new ScriptError(`${name} is an APPLY HTTP option; SELECT FROM HTTP reads once (per page)`, 'semantic');
  }
}
