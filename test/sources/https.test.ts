import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSigned } from '../helpers/self-signed';
import { tempDir } from '../helpers/temp';
import { load, sessionWith } from './helpers';

/** A self-signed certificate for 127.0.0.1, its PEM text and its key's. */
function certificate(): { key: string; cert: string } {
  const { key, cert } = selfSigned(tempDir('tls'), '/CN=127.0.0.1', ['-addext', 'subjectAltName=IP:127.0.0.1']);
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}

test("HTTPS: an unknown CA is a TLS error; the connection's ca or rejectUnauthorized:false lets it through", async () => {
  const { key, cert } = certificate();
  const server = createServer({ key, cert }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[{"secure":true}]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { session } = sessionWith();
  after(async () => {
    await session.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  await assert.rejects(
    session.run(`SELECT * FROM HTTP (GET ${url}/x);`),
    /TLS: .*self[- ]signed.*give the connection its CA/i,
  );
  session.connections.add({ name: 'pinned', kind: 'http', baseUrl: url, tls: { ca: cert } });
  session.connections.add({ name: 'lax', kind: 'http', baseUrl: url, tls: { rejectUnauthorized: false } });
  assert.equal((await load(session, "SELECT * FROM HTTP [pinned] (GET /x) APPLY TX '$';")).rows()[0][0], true);
  assert.equal((await load(session, "SELECT * FROM HTTP [lax] (GET /x) APPLY TX '$';")).rows()[0][0], true);
});
