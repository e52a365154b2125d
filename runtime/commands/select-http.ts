import { Dataset } from '../dataset/dataset';
import { STRING } from '../dataset/types';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { HttpOptions, SelectHttp } from '../script/ast';
import type { RunState } from '../scope';
import { concatDatasets } from '../sources/concat';
import { buildRequest } from '../http/build';
import { MAX_PAGES, Pager } from '../sources/http/paging';
import { readPages, type Page } from '../sources/http/read';
import { compileTx, transformParsed, transformText, type TxOptions, type TxPlan } from '../sources/tx';
import { PagePipeline } from './apply-pipeline';
import { atArgument } from '../at-argument';
import type { Command } from './command';
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
  const request = buildRequest({
    connection: connection && atArgument(connection, () => session.connections.getOf(connection.name, 'http')),
    method: command.verb,
    target: evaluateText(command.target, ctx),
    targetPos: command.target.pos,
    headers: o.headers && evaluateText(o.headers, ctx),
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
      pos: o.paging?.pos,
    },
    request.url,
  );
  const plan = stmt.tx ? compileTx(stmt.tx.path.value, stmt.tx.path.pos) : undefined;
  const txOptions: TxOptions = {
    rawCol: stmt.rawCol?.value,
    floatDecimal: floatsAsDecimal(session),
  };
  const parts: Dataset[] = [];
  const pipeline = stmt.pipeline && new PagePipeline(stmt.pipeline, ctx);
  // A failed call (refused, timed out, an HTTP error status) is about the target. Errors of the inline
  // pipeline already carry their statement's position and keep it.
  const reading = { resources: session.resources, workspace: session.workspace, signal: ctx.signal };
  await atArgument(command.target, () =>
    readPages(request, pager, reading, txOptions.floatDecimal, async (page) => {
      recordLastHttp(ctx.run, page);
      const data = plan ? pageRows(page, plan, txOptions) : responseRow(page, o.returnBytes ?? false);
      const records = plan ? () => data.rowCount : () => page.bodyRecords();
      if (!pipeline) {
        parts.push(data);
        return { records, stop: false };
      }
      const outcome = await pipeline.run(data);
      parts.push(outcome.dataset);
      return { records, stop: outcome.stop };
    }),
  );
  if (pager.truncated) ctx.emit({ kind: 'warning', text: `paging stopped after ${MAX_PAGES} pages, the maximum` });
  return concatDatasets(parts);
};

export function pageRows(page: Page, plan: TxPlan, options: TxOptions): Dataset {
  const source = { ...options, source: page.call, mediaType: page.response.mediaType };
  if (plan.kind === 'csv') return transformText(page.text(), plan, source);
  const { root, kind } = page.document();
  return transformParsed(root, kind, plan, source);
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

function recordLastHttp(run: RunState, page: Page): void {
  const r = page.response;
  run.lastHttp = {
    status: r.status,
    headers: r.headers,
    content: page.text(),
    mediaType: r.mediaType,
    byteCount: r.body.length,
  };
}

/** Options of the shared HTTP option set that give SELECT FROM HTTP no meaning (yet). */
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
  const later: [keyof HttpOptions, string][] = [
    ['continueOnErrors', 'CONTINUE_ON_ERRORS'],
    ['continueOnHttpError', 'CONTINUE_ON_HTTPERROR'],
    ['retryOn', 'RETRY_ON'],
    ['retryOnRegex', 'RETRY_ONREGEX'],
    ['retryPath', 'RETRY_PATH'],
    ['retryInterval', 'RETRY_INTERVAL'],
    ['retryCount', 'RETRY_COUNT'],
    ['trace', 'TRACE'],
  ];
  for (const [key, name] of later) {
    if (o[key] !== undefined) throw new ScriptError(`${name} is not supported on SELECT FROM HTTP`, 'unsupported');
  }
}
