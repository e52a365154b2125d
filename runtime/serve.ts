// The webhook listener of `sqlcdc serve`: the ingest of calls into change logs, the HTTP server, the
// idempotency store. Without the session, which loads with the first call that runs a job's writer
// (the CLI's openSession), nor the commands, magics and the editing services. runtime/index.ts
// exports the same.
export { Ingest } from './webhook/ingest';
export { isLoopback, startListener } from './webhook/server';
export { IdempotencyStore } from './webhook/idempotency';
export { READ_TIMEOUT_MS } from './webhook/read-timeout';
export { parseSize } from './util/size';
