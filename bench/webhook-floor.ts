/**
 * The floor of a durable ingest on this machine, a second reference for `npm run bench -- webhook`:
 * a node:http server that does only what any listener answering "your log is on disk" must do. It
 * parses the body, records the batch in a preallocated journal whose one fdatasync starts at once,
 * meanwhile writes each body to a file of its own (made nameless and named once whole, as sqlcdc
 * does where the system allows: runtime/workspace/nameless-file.ts), and answers once both are done.
 * The files are written on a thread of its own, in batches. There is no language, no typing, no
 * change log format and no run record. Its folder is argv[1].
 */
const NAMELESS = JSON.stringify(require.resolve('../runtime/workspace/nameless-file'));

export const FLOOR = `
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const root = process.argv[1];
const files = new Worker(\`
  const fs = require('node:fs');
  const path = require('node:path');
  const { parentPort, workerData } = require('node:worker_threads');
  const { namelessFilesIn } = require(${NAMELESS});
  const logs = path.join(workerData, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const nameless = namelessFilesIn(logs);
  if (!nameless) throw new Error('the floor needs nameless files (O_TMPFILE and koffi)');
  const journal = fs.openSync(path.join(workerData, 'journal'), 'w');
  fs.writeSync(journal, Buffer.alloc(64 << 20), 0, 64 << 20, 0);
  fs.fdatasyncSync(journal);
  let at = 0;
  let flushing = 0;
  const queue = [];
  function next() {
    while (flushing < 3 && queue.length > 0) {
      const batch = queue.splice(0, 64);
      const records = Buffer.from(batch.map((c) => c.name + '\\\\n' + c.log + '\\\\n').join(''));
      fs.writeSync(journal, records, 0, records.length, at);
      at += records.length;
      flushing++;
      let left = 2;
      const done = () => {
        if (--left > 0) return;
        flushing--;
        parentPort.postMessage(batch.map((c) => c.id));
        next();
      };
      fs.fdatasync(journal, done);
      for (const call of batch) {
        const fd = nameless.open(logs);
        fs.writeSync(fd, call.log);
        nameless.name(fd, path.join(logs, call.name));
        fs.closeSync(fd);
      }
      done();
    }
  }
  parentPort.on('message', (calls) => {
    queue.push(...calls);
    next();
  });
\`, { eval: true, workerData: root });
const waiting = new Map();
let handed = [];
let id = 0;
let executionId = Date.now();
files.on('message', (ids) => {
  for (const i of ids) {
    waiting.get(i)();
    waiting.delete(i);
  }
});
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const rows = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const name = 'job_' + executionId++ + '.log';
    const call = id++;
    waiting.set(call, () => {
      const text = JSON.stringify({ changeLog: path.join(root, 'logs', name), rows: Array.isArray(rows) ? rows.length : 1 });
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    });
    if (handed.length === 0) setImmediate(() => files.postMessage(handed.splice(0)));
    handed.push({ id: call, name, log: JSON.stringify(rows) });
  });
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port + '/job/push'));
`;
