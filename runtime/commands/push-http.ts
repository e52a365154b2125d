import { createHash } from 'node:crypto';
import { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError } from '../errors';
import { compileTemplate, evaluateText } from '../functions/evaluate';
import { buildRequest } from '../http/build';
import { getHeader, setHeader } from '../http/headers';
import { bodyStart, decodeBody, describeCall, statusError, type CallContext, type HttpRequest } from '../http/request';
import { sendWithRetries, type RetryRules } from '../http/retry';
import type { HttpSection, PushHttp } from '../script/ast';
import { batchCount, batchRows, batchSize } from '../targets/batches';
import { failPush, finishPush, outcomeOptions } from '../targets/outcome';
import { finishProgress, progressNotes, readProgress, writeProgress, type PushProgress } from '../targets/resume';
import { Tracer } from '../targets/trace';
import type { HttpConnection } from '../workspace/connections';
import { atArgument } from '../at-argument';
import { counted } from '../util/words';
import type { Command, CommandContext } from './command';
import {
  bodyRetry,
  HEADERS_TEMPLATE,
  warnOfRetry,
  payloadTemplate,
  statusCodes,
  URL_TEMPLATE,
  userRegex,
} from './http-options';
import { progressLine } from '../targets/progress';
import { turn } from '../util/turn';

type Stream = 'upsert' | 'delete';

/** What a push did, for its progress line and final message. */
interface Tally {
  calls: number;
  rows: number;
  retries: number;
  /** Calls answered with a status CONTINUE_ON_HTTP lets through. */
  failures: number;
  total: number;
  started: number;
  /** When progress was last shown. */
  shown: number;
}

/** A call made ready: its request and how many rows it carries, or the error making it raised. */
type Prepared = { request: HttpRequest; rows: number } | { error: unknown };

/**
 * PUSH INTO HTTP [conn] ON_UPSERT (…) … ON_DELETE (…) … WITH … (spec §4.2 PUSH HTTP, §4.3, §3, §7;
 * docs/push.md). Sends the upsert and delete streams of the run's change log (from CAPTURE or LOAD; with
 * neither, the whole dataset as upserts), one call per row or per BATCH of rows, in order. The dataset is
 * left as it was.
 */
export const pushHttp: Command<PushHttp> = async (stmt, input, ctx) => {
  const log = ctx.run.changeLog;
  // No change log: the dataset is the upsert stream, and the delete stream is empty with the same columns.
  const streams = log ?? {
    upserts: input,
    deletes: Dataset.fromRows(input.columns, []),
    keys: [],
    executionId: ctx.run.executionId,
    file: undefined,
  };
  const connection =
    stmt.connection && atArgument(stmt.connection, () => ctx.session.connections.getOf(stmt.connection!.name, 'http'));
  const outcome = outcomeOptions(stmt.options, ctx);
  const sections = [
    { section: stmt.onUpsert, stream: 'upsert' as const, rows: streams.upserts },
    { section: stmt.onDelete, stream: 'delete' as const, rows: streams.deletes },
  ].flatMap(({ section, stream, rows }) =>
    section ? [new SectionPush(stmt, section, stream, rows, connection, ctx)] : [],
  );
  const tally: Tally = {
    calls: 0,
    rows: 0,
    retries: 0,
    failures: 0,
    total: sections.reduce((n, s) => n + s.rows.rowCount, 0),
    started: performance.now(),
    shown: 0,
  };
  const progressId = `push-${ctx.run.executionId}-${stmt.pos.offset}`;
  const progress = await readProgress(log, ctx.session.workspace);
  const notes = progressNotes(log, progress);
  try {
    for (const s of sections) await s.tracer?.prepare();
    for (const s of sections) {
      try {
        await s.run(streams.executionId, progress, tally, () => {
          notes.done();
          report(ctx, progressId, tally, false);
        });
      } finally {
        await s.tracer?.flush();
      }
    }
  } catch (e) {
    await notes.stop();
    report(ctx, progressId, tally, true);
    await writeProgress(log, progress);
    await failPush(log, outcome, e, (r) => ctx.emit(r));
  }
  await notes.stop();
  report(ctx, progressId, tally, true);
  await finishProgress(log, progress, ctx.run);
  ctx.emit({ kind: 'message', text: summary(tally) });
  await finishPush(log, outcome, (r) => ctx.emit(r));
};

/** One ON_UPSERT or ON_DELETE section, compiled before the first call so a mistake sends nothing. */
class SectionPush {
  private readonly size: number;
  private readonly target;
  private readonly payload;
  private readonly headers;
  private readonly contentType?: string;
  private readonly continueOn: Set<number>;
  private readonly throwOn?: RegExp;
  private readonly retry: RetryRules;
  /** Names this target in the resume record: the same section pushing the same log resumes. */
  private readonly id: string;
  /**
   * The target in its calls' Idempotency-Keys: receivers scope keys per account, not per endpoint, so
   * one log pushed to two targets (or two streams of a run) must not send the same key with two
   * bodies. A hash, as the target as written may hold a token.
   */
  private readonly keyTag: string;
  /** TRACE INTO: every call of the section recorded in a database table. */
  readonly tracer?: Tracer;

  constructor(
    private readonly stmt: PushHttp,
    private readonly section: HttpSection,
    private readonly stream: Stream,
    readonly rows: Dataset,
    private readonly connection: HttpConnection | undefined,
    private readonly ctx: CommandContext,
  ) {
    this.tracer = section.trace && new Tracer(section.trace, ctx, ctx.signal);
    this.contentType = section.contentType && evaluateText(section.contentType, ctx);
    const payload =
      section.payload && compileTemplate(section.payload, payloadTemplate(section.payload, this.contentType));
    this.size = batchSize(stmt.options.batch, payload?.batch ?? false, section.payload?.pos ?? stmt.pos);
    const bind = (t: ReturnType<typeof compileTemplate>) => t.bindBatch(ctx, rows, { fxByRow: true });
    this.target = atArgument(section.command.target, () => bind(compileTemplate(section.command.target, URL_TEMPLATE)));
    this.payload = payload && atArgument(section.payload, () => bind(payload));
    this.headers =
      section.headers && atArgument(section.headers, () => bind(compileTemplate(section.headers!, HEADERS_TEMPLATE)));
    this.continueOn = statusCodes(section.continueOnHttp);
    this.throwOn = section.throwOnRegex && userRegex(section.throwOnRegex);
    this.retry = { policy: stmt.options.retry, body: bodyRetry(section, ctx) };
    this.id = `${connection?.name ?? ''} ${section.command.verb} ${section.command.target.value}`;
    this.keyTag = createHash('sha256').update(this.id).digest('hex').slice(0, 8);
  }

  async run(executionId: string, progress: PushProgress, tally: Tally, tick: () => void): Promise<void> {
    const { rows, size, ctx } = this;
    const calls = batchCount(rows.rowCount, size);
    const done = (progress.done[this.id] ??= {});
    const first = done[this.stream] ?? 0;
    if (first > 0) {
      ctx.emit({
        kind: 'message',
        text:
          first < calls
            ? `${this.stream} stream: resuming at batch ${first + 1} of ${calls} (batches before it were sent by an earlier push of this change log)`
            : `${this.stream} stream: all ${counted(calls, 'batch', 'batches')} were sent by an earlier push of this change log`,
      });
      tally.total -= Math.min(rows.rowCount, first * size);
    }
    const call: CallContext = {
      resources: ctx.session.resources,
      workspace: ctx.session.workspace,
      signal: ctx.signal,
    };
    const batchAt = batchRows(rows, size);
    const prepare = (b: number): Prepared => {
      try {
        return this.prepare(batchAt(b * size), b, executionId);
      } catch (error) {
        return { error };
      }
    };
    let next = first < calls ? prepare(first) : undefined;
    for (let b = first; b < calls; b++) {
      const current = next!;
      if ('error' in current) throw current.error;
      // The next call is made ready while this one is in flight, so building a body overlaps the
      // receiver's work instead of following it. undici writes a request on a reused keep-alive
      // socket from a setImmediate (it first lets a pending close of the idle socket arrive), so the
      // next one is made in an immediate queued after that write. Calls still go one at a time, in
      // order, and an error making the next one is raised only when its turn comes.
      const answered = this.send(current.request, call, tally);
      // Awaited below, after the next call is made: a failure arriving before then is not unhandled.
      answered.catch(() => undefined);
      if (b + 1 < calls) {
        // A turn lets the request just made be written before the next is built.
        await turn();
        next = prepare(b + 1);
      }
      await answered;
      done[this.stream] = b + 1;
      tally.calls++;
      tally.rows += current.rows;
      tick();
    }
  }

  /** Batch `b`'s request, with its rows (starting at row b × size) in `rows`. */
  private prepare(rows: Value[][], b: number, executionId: string): Prepared {
    const { section } = this;
    const start = b * this.size;
    const request = atArgument(section.command.target, () =>
      buildRequest({
        connection: this.connection,
        method: section.command.verb,
        target: this.target(rows, start),
        targetPos: section.command.target.pos,
        headers: this.headers?.(rows, start),
        headersPos: section.headers?.pos,
        payload: this.payload?.(rows, start),
        contentType: this.contentType,
        timeout: this.stmt.options.timeout,
      }),
    );
    // The same batch of the same log always carries the same key, so a receiver can drop a repeat.
    if (getHeader(request.headers, 'idempotency-key') === undefined)
      setHeader(request.headers, 'Idempotency-Key', `${executionId}-${this.keyTag}-${this.stream}-${b + 1}`);
    return { request, rows: rows.length };
  }

  private async send(request: HttpRequest, call: CallContext, tally: Tally): Promise<void> {
    const { section } = this;
    const started = new Date();
    const { response } = await atArgument(section.command.target, () =>
      sendWithRetries(request, call, this.retry, (retry) => {
        tally.retries++;
        warnOfRetry(this.ctx, request, retry);
      }),
    );
    await this.tracer?.record(request, response, started);
    const ok = response.status >= 200 && response.status < 300;
    if (!ok) {
      if (this.continueOn.has(response.status)) {
        tally.failures++;
        return;
      }
      throw statusError(response, request).locate(section.command.target.pos);
    }
    if (this.throwOn?.test(decodeBody(response))) {
      throw new ScriptError(
        `THROW_ON_REGEX '${section.throwOnRegex!.value}' matched the response of ${describeCall(request)}${bodyStart(response, request)}`,
        'runtime',
        section.throwOnRegex!.pos,
      );
    }
  }
}

function report(ctx: CommandContext, id: string, t: Tally, done: boolean): void {
  const text = progressLine('PUSH INTO HTTP', t, details, done);
  if (text) ctx.emit({ kind: 'progress', id, text, done });
}

function details(t: Tally): string {
  return `${counted(t.calls, 'call')}, ${counted(t.retries, 'retry', 'retries')}`;
}

function summary(t: Tally): string {
  return `PUSH INTO HTTP: ${counted(t.calls, 'call')} made, ${counted(t.rows, 'row')} sent, ${counted(t.retries, 'retry', 'retries')}, ${counted(t.failures, 'failure')} let through by CONTINUE_ON_HTTP`;
}
