import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dataset } from '../dataset/dataset';
import { ScriptError } from '../errors';
import { newGuid } from '../jobs/job';
import { triggeredFailure, type JobReport } from '../jobs/runner';
import { JobStore } from '../jobs/store';
import type { MagicHost } from '../magics/magic';
import type { Disposable } from '../resources';
import { IdempotencyStore } from './idempotency';
import { Ingest } from './ingest';
import { payloadToDataset, PayloadError } from './payload';
import { bearerKey, Gate, PUSH_PATH, readBody, Refused, send, sendFailure, type BodyLimits } from './gate';
import { answerProtocolErrors } from './protocol-errors';
import { READ_TIMEOUT_MS, readTimeoutOptions } from './read-timeout';
import { answerOnce, type Once } from './repeats';
import { formatSize } from '../util/size';
import { counted } from '../util/words';

/** A call the session's listener received: its rows, kept in the session's inbox while it is among the last ones. */
export interface Arrival {
  /** 1-based, in order of arrival. */
  n: number;
  at: Date;
  method: string;
  /** The payload's rows; undefined once the inbox dropped them (INBOX_CALLS, INBOX_BYTES). */
  dataset?: Dataset;
  rows: number;
  /** The payload's size: what the inbox counts against INBOX_BYTES. */
  bytes: number;
  status: number;
  /** With --job: the job's answer (executionId, changeLog, writer). */
  answer?: unknown;
  /** With --job: the answer is the first call's, for a repeated idempotency key. */
  replayed?: boolean;
}

export interface SessionListenerOptions {
  port: number;
  job?: string;
  auth: boolean;
  /** Where arrivals are shown: the origin of the cell that started the listener. */
  origin?: string;
}

/** Bodies up to 10 MB, read as `sqlcdc serve` reads them by default (read-timeout.ts). */
const LIMITS: BodyLimits = { maxBody: 10 * 1024 * 1024, readTimeoutMs: READ_TIMEOUT_MS };
/**
 * The inbox keeps the payloads of the last this many calls, and of as many of them as hold this
 * many bytes: a listener left running in a notebook for days would otherwise keep every payload it
 * ever took in the kernel's memory. The log of calls (number, time, method, rows, status) is kept whole.
 */
export const INBOX_CALLS = 1000;
export const INBOX_BYTES = 32 * 1024 * 1024;
const INBOX_LIMITS = `${INBOX_CALLS.toLocaleString('en-US')} payloads (${INBOX_BYTES / 1024 / 1024} MB at most)`;

/**
 * `%webhook start`: a listener inside the REPL or kernel process, on 127.0.0.1, for trying live
 * payloads from a notebook. Calls to `/job/push?guid=<its guid>` become datasets kept in the inbox and
 * shown under the cell that started it (published on the session's output with that cell's origin);
 * with a job, each is also run through that job's writer exactly as `sqlcdc serve` would.
 */
export class SessionListener implements Disposable {
  readonly guid = newGuid();
  /** The access key callers send as `Authorization: Bearer`, when auth is on; it lives as long as the listener. */
  readonly key?: string;
  readonly calls: Arrival[] = [];
  /** Index in `calls` of the oldest call whose payload the inbox still holds, and the bytes it holds. */
  private firstKept = 0;
  private keptBytes = 0;
  /** Closed by `%webhook stop` or the session: its inbox can still be taken from until a new start. */
  stopped = false;
  url = '';
  private server?: Server;
  private waiters: { done: (a: Arrival) => void; fail: (e: Error) => void }[] = [];
  /**
   * Calls accepted (their body read) and not yet answered: closing waits for them, as `sqlcdc serve`
   * does, so none loses its answer or its writer's run. A caller still sending its body is cut off.
   */
  private readonly underWay = new Set<Promise<void>>();
  private readonly ingest?: Ingest;
  /** With --job: the workspace's idempotency answers, those `sqlcdc serve` keeps. */
  private idempotency?: IdempotencyStore;
  private readonly gate: Gate;

  private constructor(
    private readonly host: MagicHost,
    readonly options: SessionListenerOptions,
  ) {
    if (options.auth) this.key = `sqk_${randomBytes(32).toString('base64url')}`;
    if (options.job) {
      const store = new JobStore(host.workspace, host.openSession);
      const job = store.get(options.job);
      if (!job.webhook)
        throw new ScriptError(
          `job ${job.name} is not enabled for webhooks (%%job ${job.name} writer --webhook over its script, or sqlcdc job create … --webhook)`,
          'semantic',
        );
      const origin = options.origin;
      // The jobs its triggers run show under the starting cell too, as they do under a %job run cell.
      const report: JobReport = (result, from) => {
        if (result.kind === 'table') return;
        const failed = result.kind === 'error' && from;
        host.output.publish({
          origin,
          result: failed ? triggeredFailure(store, job.name, from, result.error) : result,
        });
      };
      this.ingest = new Ingest(store, report, (item) => host.output.publish(item));
    }
    this.gate = this.makeGate();
  }

  /** Refuses a job that does not exist or serves no webhooks at once, as a throw (not a rejection), then listens. */
  static start(host: MagicHost, options: SessionListenerOptions): Promise<SessionListener> {
    return new SessionListener(host, options).listen();
  }

  private async listen(): Promise<this> {
    const { port } = this.options;
    if (this.ingest) this.idempotency = await IdempotencyStore.open(this.host.workspace);
    // The Gate refuses a request without Host itself, with a JSON reason.
    const server = createServer(
      { requireHostHeader: false, ...readTimeoutOptions(LIMITS.readTimeoutMs) },
      (req, res) => void this.handle(req, res),
    );
    answerProtocolErrors(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    }).catch((e: unknown) => {
      throw new ScriptError(`cannot listen on 127.0.0.1:${port}: ${(e as Error).message}`, 'runtime');
    });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PUSH_PATH}?guid=${this.guid}`;
    return this;
  }

  /** The next call to arrive; rejects after `timeoutMs`, when `signal` aborts (Ctrl-C) or the listener stops. */
  next(timeoutMs: number | undefined, signal?: AbortSignal): Promise<Arrival> {
    return new Promise((resolve, reject) => {
      const waiter = {
        done: (a: Arrival) => {
          settle();
          resolve(a);
        },
        fail: (e: Error) => {
          settle();
          reject(e);
        },
      };
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const onAbort = () => waiter.fail(new ScriptError('cancelled', 'cancelled'));
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => waiter.fail(new ScriptError(`no call arrived within ${timeoutMs / 1000} s`, 'runtime')),
              timeoutMs,
            );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const w of [...this.waiters]) w.fail(new ScriptError('the webhook listener was stopped', 'runtime'));
    const server = this.server;
    // No new connection from here; the calls under way finish (their writers included) before the job sessions close.
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server?.closeIdleConnections();
    while (this.underWay.size > 0) await Promise.all(this.underWay);
    // Keep-alive connections that carried them would hold the port open until their clients hang up.
    server?.closeAllConnections();
    await closed;
    await this.ingest?.close();
    await this.idempotency?.close();
  }

  /** Routing and authentication as `sqlcdc serve`'s: the same refusals, the job's flag and secret read per call. */
  private makeGate(): Gate {
    const key = this.key === undefined ? undefined : Buffer.from(this.key);
    const job = this.options.job;
    return new Gate({
      access: key && {
        accepts: (authorization) => {
          // Compared as bytes: a key of as many characters, some not ASCII, is longer in bytes.
          const sent = Buffer.from(bearerKey(authorization) ?? '');
          return sent.length === key.length && timingSafeEqual(sent, key);
        },
        hint: 'the one %webhook start showed',
      },
      jobs: this.ingest?.store,
      jobOf: (guid) => {
        if (guid.toLowerCase() !== this.guid) throw new Refused(404, `no listener has guid ${guid}`);
        if (!job || !this.ingest) return null;
        const current = this.ingest.store.current(job);
        if (!current) throw new Refused(404, `job ${job} no longer exists in ${this.ingest.store.folder}`);
        return current;
      },
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answered: (() => void) | undefined;
    try {
      const { current, params } = this.gate.route(req);
      const body = await readBody(req, LIMITS);
      this.gate.verify(current, body, req);
      answered = this.accept();
      let dataset: Dataset;
      try {
        dataset = payloadToDataset(body, params);
      } catch (e) {
        if (e instanceof PayloadError) throw new Refused(400, `bad payload: ${e.message}`);
        throw e;
      }
      const { ingest, idempotency } = this;
      let once: Once = { answer: { status: 202, body: { call: this.calls.length + 1, rows: dataset.rowCount } } };
      if (ingest && idempotency && current) {
        const run = () => ingest.call(current, body, params, this.options.origin);
        const repeat = answerOnce(idempotency, req, current.job, body, run);
        once = repeat ? await repeat : { answer: await run() };
      }
      const { answer } = once;
      const arrival: Arrival = {
        n: this.calls.length + 1,
        at: new Date(),
        method: req.method ?? '',
        dataset,
        rows: dataset.rowCount,
        bytes: body.length,
        status: answer.status,
        answer: this.ingest ? answer.body : undefined,
        replayed: once.headers !== undefined,
      };
      this.keep(arrival);
      send(res, answer, once.headers);
      this.publish(arrival, dataset);
      for (const w of [...this.waiters]) w.done(arrival);
    } catch (e) {
      sendFailure(req, res, e, LIMITS.readTimeoutMs);
    } finally {
      answered?.();
    }
  }

  /** Counts a call as under way until the function it returns is called. */
  private accept(): () => void {
    let done!: () => void;
    const call = new Promise<void>((resolve) => (done = resolve));
    this.underWay.add(call);
    return () => {
      this.underWay.delete(call);
      done();
    };
  }

  /** Adds a call to the inbox, dropping the payloads of the oldest ones past its bounds. */
  private keep(arrival: Arrival): void {
    this.calls.push(arrival);
    this.keptBytes += arrival.bytes;
    while (
      this.firstKept < this.calls.length - 1 &&
      (this.calls.length - this.firstKept > INBOX_CALLS || this.keptBytes > INBOX_BYTES)
    ) {
      const dropped = this.calls[this.firstKept++];
      dropped.dataset = undefined;
      this.keptBytes -= dropped.bytes;
      // Said once, where the calls show: a user taking an old call later is not surprised. Status says it after.
      if (this.firstKept === 1)
        this.host.output.publish({
          origin: this.options.origin,
          result: {
            kind: 'warning',
            text: `webhook call 1's payload left the inbox, which keeps the last ${INBOX_LIMITS}; older payloads go first from now on (%webhook status)`,
          },
        });
    }
  }

  /** What the inbox holds, for `%webhook status`. */
  inbox(): string {
    const kept = this.calls.length - this.firstKept;
    if (kept === 0) return `empty (keeps the last ${INBOX_LIMITS})`;
    const held = `payloads of calls ${this.firstKept + 1} to ${this.calls.length} (${formatSize(this.keptBytes)})`;
    return this.firstKept === 0
      ? `${held}; keeps the last ${INBOX_LIMITS}`
      : `${held}; calls 1 to ${this.firstKept} dropped, oldest first, to keep the last ${INBOX_LIMITS}`;
  }

  /** The payload of call `n`, or why it cannot be had. */
  payload(n: number): Dataset {
    const call = this.calls[n - 1];
    if (!Number.isInteger(n) || !call)
      throw new ScriptError(`%webhook take N: N is 1 to ${this.calls.length}, not '${n}'`, 'semantic');
    if (!call.dataset)
      throw new ScriptError(
        `webhook call ${n}'s payload is no longer in the inbox, which keeps the last ${INBOX_LIMITS}: calls ${this.firstKept + 1} to ${this.calls.length} can be taken`,
        'runtime',
      );
    return call.dataset;
  }

  private publish(a: Arrival, dataset: Dataset): void {
    const origin = this.options.origin;
    const job = this.options.job
      ? `, job ${this.options.job}: ${a.status}${a.replayed ? ', the first answer to its idempotency key' : ''}`
      : '';
    this.host.output.publish({
      origin,
      result: {
        kind: 'table',
        dataset,
        limit: this.host.displayLimit,
        title: `webhook call ${a.n} (${a.method}, ${counted(a.rows, 'row')}${job})`,
      },
    });
    // The caller got the reason in the answer; the notebook trying the job is told it too.
    const failed = a.status >= 400 && (a.answer as { error?: string; writer?: { error: string | null } } | undefined);
    const reason = failed && (failed.error ?? failed.writer?.error);
    if (reason)
      this.host.output.publish({
        origin,
        result: {
          kind: 'warning',
          text: `webhook call ${a.n}: job ${this.options.job} answered ${a.status}: ${reason}`,
        },
      });
  }
}
