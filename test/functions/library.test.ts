import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { ftpUnavailable, startFtpServer } from '../helpers/ftp-server';
import { tempSession } from '../helpers/session';
import { dataset, ev, newState, tempDir } from './helpers';

const openssl = (args: string[], input?: Buffer | string) => execFileSync('openssl', args, { input });

test('hashes match openssl for UTF-8, ASCII and Unicode input', () => {
  const text = 'héllo wörld ✓';
  for (const alg of ['md5', 'sha1', 'sha256', 'sha384', 'sha512']) {
    const digest = (bytes: Buffer) =>
      openssl(['dgst', `-${alg}`, '-r'], bytes)
        .toString()
        .split(' ')[0];
    assert.equal(ev(`#hash_${alg}(${text})`), digest(Buffer.from(text, 'utf8')), alg);
    assert.equal(ev(`#hash_${alg}u(${text})`), digest(Buffer.from(text, 'utf16le')), `${alg}u`);
    assert.equal(
      ev(`#hash_${alg}a(${text})`),
      digest(Buffer.from(text.replace(/\P{ASCII}/gu, '?'), 'latin1')),
      `${alg}a`,
    );
  }
});

test('#compress is zlib (Python zlib reads it), #zip is gzip (gunzip reads it)', () => {
  const text = 'compress me, compress me, compress me ✓';
  const hex = ev(`#compress('${text}')`);
  assert.match(hex, /^[0-9a-f]+$/);
  const dir = tempDir('fn');
  writeFileSync(join(dir, 'z'), Buffer.from(hex, 'hex'));
  // This openssl is built without zlib; Python's zlib is the independent implementation.
  const inflate = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], 'rb').read()))";
  assert.equal(execFileSync('python3', ['-c', inflate, join(dir, 'z')]).toString(), text);
  const b64 = ev(`#zipu('${text}')`);
  assert.equal(execFileSync('gzip', ['-dc'], { input: Buffer.from(b64, 'base64') }).toString('utf16le'), text);
  assert.equal(ev(`#uncompress(${deflateSync(Buffer.from('from node')).toString('hex')})`), 'from node');
  assert.equal(ev(`#unzipa(#zipa(abc))`), 'abc');
  assert.throws(() => ev('#uncompress(zz)'), /#uncompress: 'zz' is not hexadecimal/);
  assert.throws(() => ev('#unzip(aGVsbG8=)'), /#unzip: not GZip data/);
});

test('base64 and hex families with encodings, unicode and null', () => {
  assert.equal(ev('#tobase64(é)'), 'w6k=');
  assert.equal(ev('#tobase64u(é)'), '6QA=');
  assert.equal(ev('#tobase64a(é)'), 'Pw==');
  assert.equal(ev('#frombase64(w6k=)'), 'é');
  assert.equal(ev('#tohex64(é)'), 'c3a9');
  assert.equal(ev('#fromhex64u(e900)'), 'é');
  assert.equal(ev('[#tohex64(null)]'), '[]');
  assert.throws(() => ev('#frombase64(@@@)'), /#frombase64: '@@@' is not Base64/);
});

test('string functions: bounds, empties, unicode', () => {
  assert.equal(ev('#contains(abcabc, a, 1)'), '1');
  assert.equal(ev('#contains(abc, z)'), '0');
  assert.equal(ev('#indexof(abcabc, b, 2)'), '4');
  assert.equal(ev('#indexof(abc, z)'), '-1');
  assert.equal(ev('#left(ab, 5)|#right(ab, 5)|#right(ab, 0)|#skip(ab, 5)'), 'ab|ab||');
  assert.equal(ev('#substring(hello, 10)|#substring(hello, 1)|#substring(hello, 1, 99)'), '|ello|ello');
  assert.throws(() => ev('#substring(hello, -1)'), /#substring: the start index \(b\) must be 0 or more, got -1/);
  assert.equal(ev('#reverse(a😀b)'), 'b😀a');
  assert.equal(ev('#len(😀)'), '2');
  assert.equal(ev("#ltrim('  x  ')|#rtrim('  x  ')|#rtrim(x--, -)"), 'x  |  x|x');
  assert.equal(ev('#replace(aaa, a, bb)'), 'bbbbbb');
  assert.throws(() => ev("#replace(a, '', b)"), /#replace: the text to replace/);
  assert.equal(ev("#singleline('a\r\nb\nc')"), 'abc');
  assert.equal(ev('#doublequoted("x")|#singlequoted(x)|#unquote("x")|#unquote(\'y\')|#unquote(z)'), '"x"|\'x\'|x|y|z');
  assert.equal(ev('#urlencode(é ?&=/)'), '%C3%A9%20%3F%26%3D%2F');
  assert.equal(ev('#urldecode(%C3%A9+x)'), 'é x');
  assert.throws(() => ev('#urldecode(%E0%A4%A)'), /#urldecode: .* is not URL-encoded/);
  assert.equal(ev('#toupper(straße)|#tolower(ÀB)'), 'STRAßE|àb');
});

test('data functions on the live pipeline', () => {
  const ds = dataset(
    [
      ['name', 'string'],
      ['qty', 'int'],
      ['price', 'double'],
    ],
    [
      ['a', 1, 2.5],
      ['b', 3, 1],
      ['c', 5, null],
    ],
  );
  const st = newState(ds);
  assert.equal(ev("#data.calc('Sum(qty)')", st), '9');
  assert.equal(ev("#data.calc('Max(qty)', 'qty < 5')", st), '3');
  assert.equal(ev("#data.count()|#data.count('qty > 1')", st), '3|2');
  assert.equal(ev("#data.value(1, 'NAME')|#data.value(2, price)", st), 'b|');
  assert.throws(() => ev('#data.value(3, name)', st), /#data.value: row 3 is out of range \(the pipeline has 3 rows\)/);
  assert.throws(() => ev('#data.value(0, nope)', st), /#data.value: unknown column 'nope'/);
  assert.match(ev('#data.sizekb()', st), /^[1-9]\d*$/);
  assert.equal(
    ev('#data.calc_hwm(2024-01-02, 2023-12-31)|#data.calc_hwm(9, 10)|#data.calc_hwm(null, x)'),
    '2024-01-02|10|x',
  );
  assert.equal(ev('#data.calc_hwmnumber(9007199254740993, 9007199254740992)'), '9007199254740993');
  assert.equal(ev('#increment(1.5)|#decrement(10)|#increment(9007199254740992)'), '2.5|9|9007199254740993');
  assert.throws(() => ev('#increment(abc)'), /#increment: a must be a number, got 'abc'/);
  assert.equal(ev("#isnotnull(null, x)|#isnullorempty('', y)|#isnotnullorempty('', y)|#isnull(a, b)"), '|y||a');
  for (let i = 0; i < 50; i++) {
    const n = Number(ev('#rndint(1, 3)'));
    assert.ok(n === 1 || n === 2, `rndint ${n}`);
    const d = Number(ev('#rnddouble(-1, 1)'));
    assert.ok(d >= -1 && d < 1);
    assert.ok(['x', 'y'].includes(ev('#pick(x, y)')));
  }
  assert.throws(() => ev('#rndint(5, 5)'), /#rndint: b \(5\) must be greater than a \(5\)/);
  assert.match(ev('#rndguid()'), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('date functions: spans, epochs, formats, errors', () => {
  assert.equal(ev('#utcdateadd(2024-01-31T10:00:00, 1m)'), '2024-02-29T10:00:00');
  assert.equal(ev('#utcdateadd(2024-02-29T10:00:00, -1y)'), '2023-02-28T10:00:00');
  assert.equal(ev('#utcdateadd(2024-01-01T00:00:00, 1d2h30n10s, o)'), '2024-01-02T02:30:10.0000000Z');
  assert.equal(ev('#utcdateadd(2024-01-01T00:00:00, -90n)'), '2023-12-31T22:30:00');
  assert.throws(() => ev('#utcdateadd(2024-01-01, 1w)'), /#utcdateadd: '1w' is not a span/);
  assert.throws(() => ev('#utcformatdate(not a date, s)'), /#utcformatdate: the date: 'not a date' is not a date/);
  assert.throws(() => ev('#utcformatdate(null, s)'), /#utcformatdate: the date is empty/);
  assert.equal(
    ev('#fromepoch(0)|#fromepoch_sec(86400, yyyy-MM-dd)|#fromepoch_ms(1500, ss.fff)'),
    '1970-01-01T00:00:00|1970-01-02|01.500',
  );
  assert.equal(ev('#toepoch_ms(1970-01-01T00:00:01.5Z)|#toepoch(/Date(5000)/)'), '1500|5');
  const epoch = Number(ev('#epoch()'));
  assert.ok(Math.abs(epoch - Date.now() / 1000) < 5);
  assert.ok(Math.abs(Number(ev('#epoch_ms()')) - Date.now()) < 5000);
  assert.match(ev('#utcnow(o)'), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z$/);
  assert.match(ev('#now()'), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  assert.match(ev('#torfc1123(#now())'), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  assert.equal(ev("#utctorfc1123('Mon, 15 Jun 2009 13:45:30 GMT')"), 'Mon, 15 Jun 2009 13:45:30 GMT');
  const ds = dataset([['d', 'datetime']], [[new Date(Date.UTC(2009, 5, 15, 13, 45, 30))]]);
  assert.equal(ev("#utcformatdate(#data.value(0, d), 'yyyy/MM/dd HH:mm')", newState(ds)), '2009/06/15 13:45');
});

test('statebag, variables (encrypted at rest) and %var', async () => {
  const { session: s } = tempSession({}, 'fn');
  const ws = s.workspace;
  await assert.rejects(s.run("PRINT '#setvar(token, abc)';"), /#setvar: variable 'token' does not exist/);
  const set = await s.run('%var set --encrypted token s3cr3t-value\n%var set plain hello');
  assert.deepEqual(
    set.map((r) => (r.kind === 'message' ? r.text : '')),
    ['variable token set (encrypted)', 'variable plain set'],
  );
  const stored = readFileSync(join(ws, 'variables.json'), 'utf8');
  assert.doesNotMatch(stored, /s3cr3t/);
  assert.equal(statSync(join(ws, 'variables.json')).mode & 0o777, 0o600);
  assert.equal(statSync(join(ws, 'secret.key')).mode & 0o777, 0o600);
  const out = await s.run(
    "PRINT '#trygetvar(token)|#trygetvar(PLAIN)|#trygetvar(none, dflt)|#trygetvar(none)|'; PRINT '#setvar(token, n3w)#trysetvar(nosuch, x)'; PRINT '#trygetvar(token)';",
  );
  assert.deepEqual(
    out.map((r) => (r.kind === 'message' ? r.text : '')),
    ['s3cr3t-value|hello|dflt||', '', 'n3w'],
  );
  assert.doesNotMatch(readFileSync(join(ws, 'variables.json'), 'utf8'), /n3w/);
  const list = await s.run('%var list');
  const table = list[0];
  assert.ok(table.kind === 'table');
  assert.deepEqual(table.dataset.rows(), [
    ['plain', 'no', 'hello'],
    ['token', 'yes', '****'],
  ]);
  await s.run('%var remove plain');
  assert.equal((await s.run("PRINT '[#trygetvar(plain)]';"))[0].kind === 'message' && 'ok', 'ok');
  await assert.rejects(s.run('%var remove plain'), /no variable 'plain'/);
  await assert.rejects(s.run('%var frob'), /unknown %var subcommand 'frob'/);
  // SQLCDC_SECRET replaces the key file; a value sealed with another key is reported, not garbled.
  process.env.SQLCDC_SECRET = 'another secret';
  try {
    await assert.rejects(s.run("PRINT '#trygetvar(token)';"), /cannot be decrypted with this workspace key/);
  } finally {
    delete process.env.SQLCDC_SECRET;
  }
});

test('#jsonformat with every #setjsonsettings key', () => {
  const st = newState();
  const src =
    '{"a": 1.50, "n": null, "s": "<é>", "d": "2009-06-15T13:45:30Z", "big": 12345678901234567890, "arr": [1, 2.0]}';
  const fmt = () => ev(`#jsonformat('${src}')`, st);
  assert.equal(
    fmt(),
    '{"a":1.5,"n":null,"s":"<é>","d":"2009-06-15T13:45:30Z","big":12345678901234567890,"arr":[1,2.0]}',
  );
  ev('#setjsonsettings(nullvaluehandling:ignore, floatparsehandling:decimal)', st);
  assert.equal(fmt(), '{"a":1.50,"s":"<é>","d":"2009-06-15T13:45:30Z","big":12345678901234567890,"arr":[1,2.0]}');
  ev("#setjsonsettings('stringescapehandling:escapenonascii,dateformathandling:microsoftdateformat')", st);
  assert.match(fmt(), /"s":"<\\u00e9>","d":"\\\/Date\(1245073530000\)\\\/"/);
  ev(
    '#setjsonsettings(stringescapehandling:escapehtml, dateformathandling:isodateformat, dateformatstring:yyyy-MM-dd HH:mm)',
    st,
  );
  assert.match(fmt(), /"s":"\\u003cé\\u003e","d":"2009-06-15 13:45"/);
  ev('#setjsonsettings(dateparsehandling:none, formatting:indented)', st);
  assert.equal(
    ev('#jsonformat(\'{"d": "2009-06-15T13:45:30Z", "o": {"x": [1]}}\')', st),
    '{\n  "d": "2009-06-15T13:45:30Z",\n  "o": {\n    "x": [\n      1\n    ]\n  }\n}',
  );
  const utc = newState();
  ev('#setjsonsettings(datetimezonehandling:utc, dateparsehandling:datetimeoffset)', utc);
  assert.equal(
    ev('#jsonformat(\'["2009-06-15T13:45:30+02:00", "2009-06-15T13:45:30Z"]\')', utc),
    '["2009-06-15T13:45:30+02:00","2009-06-15T13:45:30Z"]',
  );
  ev('#setjsonsettings(dateparsehandling:datetime)', utc);
  assert.equal(ev('#jsonformat(\'["2009-06-15T13:45:30+02:00"]\')', utc), '["2009-06-15T11:45:30Z"]');
  ev('#setjsonsettings(datetimezonehandling:unspecified)', utc);
  assert.equal(ev('#jsonformat(\'["2009-06-15T13:45:30Z"]\')', utc), '["2009-06-15T13:45:30"]');
  assert.throws(
    () => ev('#setjsonsettings(formatting:pretty)'),
    /#setjsonsettings: formatting must be one of none, indented, got 'pretty'/,
  );
  assert.throws(() => ev('#setjsonsettings(colour:red)'), /#setjsonsettings: unknown setting 'colour'/);
  assert.throws(() => ev('#jsonformat(\'{"a": }\')'), /#jsonformat: not valid JSON: unexpected '}' at character 7/);
});

test('#parse, #parsejson, #parsexml', () => {
  const json = '{"items": [{"id": 7, "name": "x"}, {"id": 8}], "n": null}';
  assert.equal(ev(`#parsejson('${json}', items[1], id)`), '8');
  assert.equal(ev(`#parsejson('${json}', $.items[0], 1)`), 'x');
  assert.equal(ev(`#parsejson('${json}', null, N)`), '');
  assert.equal(ev(`#parsejson('${json}', items[0])`), '{"id":7,"name":"x"}');
  assert.equal(ev(`#parsejson('${json}', nothing.here, id)`), '');
  const xml = '<r><i id="1" n="a">first</i><i id="2"><name>b</name></i></r>';
  assert.equal(ev(`#parsexml('${xml}', //i[2], name)`), 'b');
  assert.equal(ev(`#parsexml('${xml}', //i, 1)`), 'a');
  assert.equal(ev(`#parsexml('${xml}', //i, null)`), 'first');
  assert.equal(ev(`#parsexml('${xml}', count(//i))`), '2');
  assert.throws(() => ev("#parsexml('<r>', null, a)"), /#parsexml: not valid XML/);
  assert.equal(ev(`#parse('${xml}', //i, id)`), '1');
  assert.equal(ev(`#parse('${json}', items[0], id)`), '7');
  assert.equal(ev("#parse('id,name\n1,ann\n2,bob', 1, name)"), 'bob');
  assert.equal(ev("#parse('1,ann\n2,bob', 0, 1)"), 'ann');
  assert.throws(() => ev("#parse('id\n1', 0, nope)"), /#parse: no column 'nope'/);
});

test('#iif truthiness and #last_http_*', () => {
  for (const [cond, want] of [
    ['0', 'c'],
    ['false', 'c'],
    ["''", 'c'],
    ['null', 'c'],
    ['1', 'b'],
    ['x', 'b'],
    ['-1', 'b'],
  ]) {
    assert.equal(ev(`#iif(${cond}, b, c)`), want, cond);
  }
  assert.throws(() => ev('#last_http_status()'), /#last_http_status: no SELECT FROM HTTP has run/);
  const st = newState();
  st.run.lastHttp = {
    status: 201,
    headers: { 'content-type': 'application/json' },
    content: '{"ok":true}',
    mediaType: 'application/json',
    byteCount: 11,
  };
  assert.equal(
    ev('#last_http_status()|#last_http_mediatype()|#last_http_bytecount()|#last_http_content()', st),
    '201|application/json|11|{"ok":true}',
  );
  assert.deepEqual(JSON.parse(ev('#last_http_headers()', st)), { 'content-type': 'application/json' });
});

/** A tiny valid PNG (RGB, w×h, one colour), built by hand so the test needs no image files. */
function png(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.concat(
    Array.from({ length: h }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, 0x80)])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function pageSize(pdf: Buffer): Promise<[number, number]> {
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const doc = await PDFDocument.load(pdf);
  const { width, height } = doc.getPage(0).getSize();
  return [width, height];
}

test('#image2pdf from bytes, a local file and an http URL', async () => {
  const dir = tempDir('fn');
  const image = png(30, 20);
  writeFileSync(join(dir, 'img.png'), image);
  const st = newState(undefined, dir);
  assert.deepEqual(await pageSize(Buffer.from(ev('#image2pdf(img.png)', st), 'hex')), [30, 20]);
  assert.deepEqual(
    await pageSize(Buffer.from(ev(`#image2pdfbase64(${image.toString('hex')})`, st), 'base64')),
    [30, 20],
  );
  const ds = dataset([['img', 'bytes']], [[new Uint8Array(png(5, 7))]]);
  const { compileTemplate } = await import('../../runtime/functions/evaluate');
  const f = compileTemplate('@image2pdfbase64({{img}})').bind(newState(ds), ds);
  assert.deepEqual(await pageSize(Buffer.from(f(ds.rows()[0], 0), 'base64')), [5, 7]);
  const server = createServer((req, res) => {
    if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png(11, 13));
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    // The call blocks this thread while the worker fetches, so the server runs in a child process.
    const pdf = await runInChild(`#image2pdfbase64(http://127.0.0.1:${port}/logo.png)`);
    assert.deepEqual(await pageSize(Buffer.from(pdf, 'base64')), [11, 13]);
    await assert.rejects(runInChild(`#image2pdf(http://127.0.0.1:${port}/missing.png)`), /answered HTTP 404/);
  } finally {
    server.close();
  }
  assert.throws(() => ev('#image2pdf(nosuchfile.png)', st), /#image2pdf: no such image file/);
  // A cloud store's object is not among the spec's sources: the error says what to give instead, without the address's secret.
  for (const address of ['s3://AKIA:c2VjcmV0@lake/logo.png', 'az://salesdata:c2VjcmV0@lake/logo.png']) {
    assert.throws(
      () => ev(`#image2pdf(${address})`, st),
      (e: Error) =>
        /#image2pdf: an (s3|az):\/\/ address is not read here: give the object's pre-signed https URL \(S3\) or its https URL with a SAS token \(Azure\)$/.test(
          e.message,
        ) && !e.message.includes('c2VjcmV0'),
    );
  }
  writeFileSync(join(dir, 'text.png'), 'not an image');
  assert.throws(() => ev('#image2pdf(text.png)', st), /#image2pdf: the image is neither PNG nor JPEG/);
});

test(
  '#image2pdf from an FTP file name (an ftp:// URL with its user and password), never showing the password',
  {
    skip: ftpUnavailable(),
  },
  async () => {
    const ftp = await startFtpServer();
    try {
      mkdirSync(join(ftp.root, 'scans'));
      writeFileSync(join(ftp.root, 'scans', 'page 1.png'), png(9, 4));
      const st = newState(undefined, tempDir('fn'));
      const pdf = ev(`#image2pdfbase64(${ftp.url}scans/page%201.png)`, st);
      assert.deepEqual(await pageSize(Buffer.from(pdf, 'base64')), [9, 4]);
      assert.throws(
        () => ev(`#image2pdf(${ftp.url}scans/missing.png)`, st),
        (e: Error) =>
          /#image2pdf: FTP download of ftp:\/\/uploader:\*\*\*\*@127\.0\.0\.1:\d+\/scans\/missing\.png failed: 550/.test(
            e.message,
          ) && !e.message.includes(ftp.password),
      );
    } finally {
      await ftp.close();
    }
  },
);

/** Evaluates in a child process, so an HTTP server in this process can answer while it blocks. */
function runInChild(text: string): Promise<string> {
  const script = `const { evaluateText } = require(${JSON.stringify(require.resolve('../../runtime/functions/evaluate'))});
const { Dataset } = require(${JSON.stringify(require.resolve('../../runtime/dataset/dataset'))});
const st = { workspace: process.argv[2], cwd: process.argv[2], dataset: Dataset.empty(), statebag: new Map(), jsonSettings: new Map(), pipelineVariables: new Map() };
try { process.stdout.write(evaluateText(process.argv[1], st)); } catch (e) { process.stderr.write(e.message); process.exit(1); }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, text, tempDir('fn')], { maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      err ? reject(new Error(stderr || err.message)) : resolve(stdout),
    );
  });
}

test('#encrypt/#decrypt with a workspace certificate, cross-checked with openssl cms', () => {
  const ws = tempDir('fn');
  const certs = join(ws, 'certs');
  mkdirSync(certs);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(certs, 'agent.key'),
    '-out',
    join(certs, 'agent.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=sqlcdc test',
  ]);
  const thumb = openssl(['x509', '-in', join(certs, 'agent.pem'), '-noout', '-fingerprint', '-sha1'])
    .toString()
    .trim()
    .split('=')[1];
  const st = newState(undefined, ws);
  const secret = 'top secret ✓, with commas';
  const b64 = ev(`#encrypt('${thumb}', '${secret}')`, st);
  // openssl decrypts ours…
  writeFileSync(join(ws, 'ours.der'), Buffer.from(b64, 'base64'));
  const clear = openssl([
    'cms',
    '-decrypt',
    '-inform',
    'DER',
    '-in',
    join(ws, 'ours.der'),
    '-recip',
    join(certs, 'agent.pem'),
    '-inkey',
    join(certs, 'agent.key'),
  ]);
  assert.equal(clear.toString('utf8'), secret);
  // …and we decrypt openssl's (thumbprint in lowercase without colons works too).
  writeFileSync(join(ws, 'msg.txt'), 'from openssl');
  const theirs = openssl([
    'cms',
    '-encrypt',
    '-binary',
    '-aes256',
    '-outform',
    'DER',
    '-in',
    join(ws, 'msg.txt'),
    join(certs, 'agent.pem'),
  ]);
  assert.equal(
    ev(`#decrypt(${thumb.replace(/:/g, '').toLowerCase()}, ${theirs.toString('base64')})`, st),
    'from openssl',
  );
  assert.equal(ev(`#decrypt('${thumb}', #encrypt('${thumb}', round trip))`, st), 'round trip');
  assert.throws(
    () => ev('#encrypt(00ff, x)', st),
    /#encrypt: no certificate with thumbprint 00ff \(known: [0-9a-f]{40} \(CN=sqlcdc test\)\)/,
  );
  assert.throws(() => ev(`#decrypt('${thumb}', bm90IGNtcw==)`, st), /#decrypt: not CMS enveloped data/);
});

test('cmsSign output verifies with openssl cms -verify', async () => {
  const { findCertificate } = await import('../../runtime/workspace/certificates');
  const { cmsSign } = await import('../../runtime/workspace/cms');
  const ws = tempDir('fn');
  mkdirSync(join(ws, 'certs'));
  const pem = join(ws, 'certs', 'signer.pem');
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(ws, 'k.pem'),
    '-out',
    join(ws, 'c.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=signer',
  ]);
  writeFileSync(pem, readFileSync(join(ws, 'c.pem'), 'utf8') + readFileSync(join(ws, 'k.pem'), 'utf8'));
  const thumb = openssl(['x509', '-in', pem, '-noout', '-fingerprint', '-sha1']).toString().trim().split('=')[1];
  const der = cmsSign(Buffer.from('signed content'), findCertificate(ws, thumb));
  writeFileSync(join(ws, 'sig.der'), der);
  const out = openssl(['cms', '-verify', '-inform', 'DER', '-in', join(ws, 'sig.der'), '-CAfile', join(ws, 'c.pem')]);
  assert.equal(out.toString(), 'signed content');
});
