import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScript } from '../../runtime/script/parser';
import { b, bare, one, plain, q, textAt } from './helpers';

test('SELECT FROM HTTP with connection, APPLY TX, HTTP options, TRACE and an inline pipeline', () => {
  const text = `SELECT * FROM HTTP [orders api] (GET /orders?since={{@highwatermark}})
    APPLY TX '$.items'
    WITH PAGING 'page' PAGING_PARAM 'page' PAGING_PATH '$.next' TIMEOUT 30 HEADERS '[{"k":"v"}]'
    RAWCOL 'raw' RETRY_ON 'busy' RETRY_PATH '$.status' RETRY_INTERVAL 2 RETRY_COUNT 3
    TRACE INTO [trace db] TABLE 'calls' WITH_PAYLOAD ADD_TRACKING_FIELDS TRUNCATE_APPEND
    APPLY PIPELINE ( ADD COLUMN 'loaded=#utcnow()'; APPLY FILTER 'id > 0' ) BREAK_ON_EMPTY`;
  const s = one(text, 'SelectHttp');
  assert.equal(s.keyword, 'SELECT FROM HTTP');
  assert.equal(s.source, text);
  assert.deepEqual(plain(s.connection), { name: 'orders api' });
  assert.deepEqual(plain(s.command), { verb: 'GET', target: b('/orders?since={{@highwatermark}}') });
  assert.deepEqual(plain(s.tx), { path: q('$.items') });
  assert.deepEqual(plain(s.rawCol), q('raw'));
  assert.deepEqual(plain(s.options), {
    paging: { mode: 'page', param: q('page'), path: q('$.next') },
    timeout: 30,
    headers: q('[{"k":"v"}]'),
    retryOn: q('busy'),
    retryPath: q('$.status'),
    retryInterval: 2,
    retryCount: 3,
    trace: {
      connection: { name: 'trace db' },
      table: q('calls'),
      withPayload: true,
      addTrackingFields: true,
      truncate: false,
      truncateAppend: true,
    },
  });
  const p = s.pipeline!;
  assert.equal(p.kind, 'ApplyPipeline');
  assert.equal(p.keyword, 'APPLY PIPELINE');
  assert.equal(p.breakOnEmpty, true);
  assert.equal(p.source, "APPLY PIPELINE ( ADD COLUMN 'loaded=#utcnow()'; APPLY FILTER 'id > 0' ) BREAK_ON_EMPTY");
  assert.deepEqual(
    p.statements.map((x) => x.keyword),
    ['ADD COLUMN', 'APPLY FILTER'],
  );
  assert.ok(textAt(text, p.statements[1].pos).startsWith("APPLY FILTER 'id > 0'"));
  assert.ok(textAt(text, s.options.trace!.pos).startsWith('TRACE INTO'));
});

test('SELECT FROM HTTP without connection or options; every verb', () => {
  for (const verb of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const s = one(`SELECT * FROM HTTP (${verb.toLowerCase()} https://example.test/a)`, 'SelectHttp');
    assert.deepEqual(plain(s), {
      kind: 'SelectHttp',
      command: { verb, target: b('https://example.test/a') },
      options: {},
      keyword: 'SELECT FROM HTTP',
      source: `SELECT * FROM HTTP (${verb.toLowerCase()} https://example.test/a)`,
    });
  }
});

test('SELECT FROM HTTP: payload, content type, processing, bytes, errors options', () => {
  const s = one(
    `SELECT * FROM HTTP [a] (POST /q) PAYLOAD ({"q": "{{id}}"}) CONTENT_TYPE 'application/json'
    RETURN_BYTES PROCESSING 'replace' WHEN 'x = 1' SHIFT_ROWS 1 CONTINUE_ON_ERRORS CONTINUE_ON_HTTPERROR '404' RETRY_ONREGEX 'b.sy'`,
    'SelectHttp',
  );
  assert.deepEqual(plain(s.options), {
    payload: b('{"q": "{{id}}"}'),
    contentType: q('application/json'),
    returnBytes: true,
    processing: 'replace',
    when: q('x = 1'),
    shiftRows: 1,
    continueOnErrors: true,
    continueOnHttpError: q('404'),
    retryOnRegex: q('b.sy'),
  });
});

test('SELECT FROM DB keeps the native SQL verbatim', () => {
  const s = one("select * from db [warehouse] ( select id, 'a;b' as x from t where (a > 1) )", 'SelectDb');
  assert.deepEqual(plain(s), {
    kind: 'SelectDb',
    connection: { name: 'warehouse' },
    sql: b(" select id, 'a;b' as x from t where (a > 1) "),
    keyword: 'SELECT FROM DB',
    source: "select * from db [warehouse] ( select id, 'a;b' as x from t where (a > 1) )",
  });
});

test('SELECT FROM DRIVE with format, options, APPLY TX and RAWCOL', () => {
  const s = one("SELECT * FROM DRIVE [lake] 'in/*.xml' FORMAT XML APPLY TX '//item' RAWCOL 'xml'", 'SelectDrive');
  assert.deepEqual(plain(s), {
    kind: 'SelectDrive',
    connection: { name: 'lake' },
    path: q('in/*.xml'),
    format: 'XML',
    tx: { path: q('//item') },
    rawCol: q('xml'),
    keyword: 'SELECT FROM DRIVE',
    source: "SELECT * FROM DRIVE [lake] 'in/*.xml' FORMAT XML APPLY TX '//item' RAWCOL 'xml'",
  });
  const c = one("SELECT * FROM DRIVE 'a.csv' FORMAT CSV OPTIONS 'headers:1 delimiter:;'", 'SelectDrive');
  assert.equal(c.connection, undefined);
  assert.deepEqual(plain(c.formatOptions), q('headers:1 delimiter:;'));
});

test('LOAD with streams, connection, PATH and options', () => {
  const s = one(
    "LOAD UPSERTS DELETES FROM [lake] 'orders' PATH [lake] 'logs' WITH KEY_COLUMNS 'id,region' CHECK_SIGNATURE PREVIEW_FILE 'p.eds' INITIAL_ID '17'",
    'Load',
  );
  assert.deepEqual(plain(s), {
    kind: 'Load',
    upserts: true,
    updates: false,
    deletes: true,
    checkSignature: true,
    name: q('orders'),
    connection: { name: 'lake' },
    path: { connection: { name: 'lake' }, folder: q('logs') },
    keyColumns: q('id,region'),
    previewFile: q('p.eds'),
    initialId: q('17'),
    keyword: 'LOAD',
    source:
      "LOAD UPSERTS DELETES FROM [lake] 'orders' PATH [lake] 'logs' WITH KEY_COLUMNS 'id,region' CHECK_SIGNATURE PREVIEW_FILE 'p.eds' INITIAL_ID '17'",
  });
  const u = one("LOAD UPDATES FROM 'orders'", 'Load');
  assert.deepEqual([u.upserts, u.updates, u.deletes, u.connection, u.path], [false, true, false, undefined, undefined]);
});

test('APPLY TX with a quoted path, a block path, CSV options and ON', () => {
  assert.deepEqual(plain(one("APPLY TX '$'", 'ApplyTx').tx), { path: q('$') });
  assert.deepEqual(plain(one("APPLY TX (..docs) ON 'payload'", 'ApplyTx').tx), { path: b('..docs'), on: q('payload') });
  assert.deepEqual(plain(one("APPLY TX 'elements || items'", 'ApplyTx').tx), { path: q('elements || items') });
  assert.deepEqual(plain(one("APPLY TX 'headers:1 delimiter:,' ON 'text'", 'ApplyTx').tx), {
    path: q('headers:1 delimiter:,'),
    on: q('text'),
  });
});

test('APPLY SCHEMA: types as written, descriptions, defaults, comments, options', () => {
  const text = `APPLY SCHEMA (
    bigint id
    string[50] name |customer name |anonymous
    decimal(10, 2) total = '0'   -- money
    byte[] blob
    varchar(max) notes |free text
    bigint id2 = '@sql(CONVERT([id], 'System.Int32') * 2)'
    created = '#utcnow()'
    [my col] |has spaces
    int a, int b
) CONTINUE_ON_ERROR STRICT_COLUMNS FX_BY_ROW`;
  const s = one(text, 'ApplySchema');
  assert.deepEqual(plain(s.columns), [
    { typeName: 'bigint', name: 'id' },
    { typeName: 'string[50]', name: 'name', description: 'customer name', default: bare('anonymous') },
    { typeName: 'decimal(10, 2)', name: 'total', default: q('0') },
    { typeName: 'byte[]', name: 'blob' },
    { typeName: 'varchar(max)', name: 'notes', description: 'free text' },
    { typeName: 'bigint', name: 'id2', default: q("@sql(CONVERT([id], 'System.Int32') * 2)") },
    { name: 'created', default: q('#utcnow()') },
    { name: 'my col', description: 'has spaces' },
    { typeName: 'int', name: 'a' },
    { typeName: 'int', name: 'b' },
  ]);
  assert.deepEqual([s.continueOnError, s.strictColumns, s.fxByRow], [true, true, true]);
  assert.ok(textAt(text, s.columns[2].pos).startsWith('decimal(10, 2) total'));
  assert.ok(textAt(text, s.columns[9].pos).startsWith('int b'));
});

test('APPLY PIPELINE parses its statements recursively, nested pipelines too', () => {
  const text = `APPLY PIPELINE (
  ADD COLUMN 'x=1';
  APPLY PIPELINE ( APPLY FILTER 'x = 1' ) BYPASS;
  PRINT 'done'
) BREAK_ON_EMPTY`;
  const p = one(text, 'ApplyPipeline');
  assert.equal(p.breakOnEmpty, true);
  assert.equal(p.bypass, false);
  assert.deepEqual(
    p.statements.map((s) => s.kind),
    ['AddColumn', 'ApplyPipeline', 'Print'],
  );
  const inner = p.statements[1];
  assert.ok(inner.kind === 'ApplyPipeline' && inner.bypass);
  assert.equal(inner.statements[0].kind, 'ApplyFilter');
  assert.deepEqual(inner.statements[0].pos, { line: 3, column: 20, offset: text.indexOf('APPLY FILTER') });
  assert.deepEqual(one('APPLY PIPELINE ( )', 'ApplyPipeline').statements, []);
});

test('APPLY HTTP with every option', () => {
  const s = one(
    `APPLY HTTP [crm] (POST /customers/{{id}}/notes) APPLY TX '$.result'
    WITH PAGING 'offset' PAGING_PARAM 'skip' TIMEOUT 10 HEADERS '[]' PAYLOAD '{"text": "{{note}}"}'
    CONTENT_TYPE 'application/json' RETURN_BYTES PROCESSING 'inner join' WHEN 'active = 1' SHIFT_ROWS 3
    CONTINUE_ON_ERRORS CONTINUE_ON_HTTPERROR '404,409' RETRY_ON 'try later' RETRY_PATH 'status'
    RETRY_INTERVAL 0.5 RETRY_COUNT 4 TRACE INTO [t] TABLE 'trace' TRUNCATE`,
    'ApplyHttp',
  );
  assert.deepEqual(plain(s.connection), { name: 'crm' });
  assert.deepEqual(plain(s.command), { verb: 'POST', target: b('/customers/{{id}}/notes') });
  assert.deepEqual(plain(s.tx), { path: q('$.result') });
  assert.deepEqual(plain(s.options), {
    paging: { mode: 'offset', param: q('skip') },
    timeout: 10,
    headers: q('[]'),
    payload: q('{"text": "{{note}}"}'),
    contentType: q('application/json'),
    returnBytes: true,
    processing: 'inner join',
    when: q('active = 1'),
    shiftRows: 3,
    continueOnErrors: true,
    continueOnHttpError: q('404,409'),
    retryOn: q('try later'),
    retryPath: q('status'),
    retryInterval: 0.5,
    retryCount: 4,
    trace: {
      connection: { name: 't' },
      table: q('trace'),
      withPayload: false,
      addTrackingFields: false,
      truncate: true,
      truncateAppend: false,
    },
  });
  for (const mode of ['continue', 'replace', 'inner join', 'left join', 'enhance']) {
    assert.equal(one(`APPLY HTTP (GET /x) PROCESSING '${mode.toUpperCase()}'`, 'ApplyHttp').options.processing, mode);
  }
  for (const mode of ['none', 'offset', 'page', 'link', 'token']) {
    assert.equal(one(`APPLY HTTP (GET /x) PAGING '${mode}'`, 'ApplyHttp').options.paging?.mode, mode);
  }
});

test('APPLY FILTER: every mode and option; the expression in parentheses', () => {
  const s = one(
    "APPLY FILTER REGEX '^[A-Z]{3}-\\d+$' ON 'code' LIMIT 100 ORDER BY 'a DESC, b' KEEP_EMPTY KEEP_INVALID CASE_INSENSITIVE SINGLE_LINE",
    'ApplyFilter',
  );
  assert.deepEqual(plain(s), {
    kind: 'ApplyFilter',
    mode: 'REGEX',
    expression: q('^[A-Z]{3}-\\d+$'),
    on: q('code'),
    limit: 100,
    orderBy: q('a DESC, b'),
    keepEmpty: true,
    keepInvalid: true,
    caseInsensitive: true,
    singleLine: true,
    keyword: 'APPLY FILTER',
    source:
      "APPLY FILTER REGEX '^[A-Z]{3}-\\d+$' ON 'code' LIMIT 100 ORDER BY 'a DESC, b' KEEP_EMPTY KEEP_INVALID CASE_INSENSITIVE SINGLE_LINE",
  });
  assert.equal(one("APPLY FILTER 'a > 1'", 'ApplyFilter').mode, 'SQL');
  assert.equal(one("APPLY FILTER SQL 'a > 1'", 'ApplyFilter').mode, 'SQL');
  assert.equal(one("APPLY FILTER XPATH '//a[@b=1]' ON 'raw'", 'ApplyFilter').mode, 'XPATH');
  assert.equal(one("APPLY FILTER TX 'price > 2' ON 'doc'", 'ApplyFilter').mode, 'TX');
  assert.deepEqual(
    plain(one("APPLY FILTER (name = 'x' AND (a > 1 OR b IS NULL))", 'ApplyFilter').expression),
    b("name = 'x' AND (a > 1 OR b IS NULL)"),
  );
});

test("ADD COLUMN: typed shape '[type] name=default'", () => {
  const text = "ADD COLUMN 'datetime loaded=#utcnow()'";
  const { typePos, ...s } = one(text, 'AddColumn');
  assert.ok(textAt(text, typePos).startsWith('datetime loaded'), 'typePos: where the type starts');
  assert.deepEqual(plain(s), {
    kind: 'AddColumn',
    orAlter: false,
    shape: 'typed',
    typeName: 'datetime',
    name: 'loaded',
    default: q('#utcnow()'),
    ignoreIfExists: false,
    continueOnError: false,
    keyword: 'ADD COLUMN',
    source: "ADD COLUMN 'datetime loaded=#utcnow()'",
  });
  const d = one("ADD COLUMN 'decimal(10, 2) price = @sql(CONVERT([p], ''System.Decimal'') = 1)'", 'AddColumn');
  assert.deepEqual(
    [d.typeName, d.name, d.default.value],
    ['decimal(10, 2)', 'price', "@sql(CONVERT([p], 'System.Decimal') = 1)"],
  );
  const n = one("ADD COLUMN 'note'", 'AddColumn');
  assert.deepEqual([n.typeName, n.name, n.default.value], [undefined, 'note', '']);
  const f = one("ADD COLUMN 'ref={{id}}'", 'AddColumn');
  assert.deepEqual([f.name, f.default.value], ['ref', '{{id}}']);
});

test("ADD OR ALTER COLUMN: paren shape (name='default'), FORMAT and WITH options", () => {
  const text =
    "ADD OR ALTER COLUMN (doc='') FORMAT JSON INCLUDE 'id,name' EXCLUDE 'x' COLLAPSE WHEN 'id > 0' OPTIONS 'date:s' WITH IGNORE_IF_EXISTS CONTINUE_ON_ERROR";
  const s = one(text, 'AddColumn');
  assert.deepEqual(plain(s), {
    kind: 'AddColumn',
    orAlter: true,
    shape: 'paren',
    name: 'doc',
    default: q(''),
    format: {
      format: 'JSON',
      include: q('id,name'),
      includeNot: false,
      exclude: q('x'),
      collapse: true,
      when: q('id > 0'),
      options: q('date:s'),
    },
    ignoreIfExists: true,
    continueOnError: true,
    keyword: 'ADD COLUMN',
    source: text,
  });
  assert.ok(textAt(text, s.format!.pos).startsWith('FORMAT JSON'));
  const x = one(
    "ADD COLUMN (x=#pick(lamp,fridge,door)) FORMAT XML INCLUDE NOT 'secret' OPTIONS 'element:row'",
    'AddColumn',
  );
  assert.deepEqual(plain(x.default), { value: '#pick(lamp,fridge,door)', form: 'bare' });
  assert.deepEqual([x.format?.format, x.format?.includeNot, x.format?.include?.value], ['XML', true, 'secret']);
  assert.equal(one("ADD COLUMN (n='it''s')", 'AddColumn').default.value, "it's");
});

test("ADD COLUMN 'x' WITH EXPRESSION '…' (older spelling)", () => {
  const s = one("ADD COLUMN 'total' WITH EXPRESSION '@sql(price * qty)' IGNORE_IF_EXISTS", 'AddColumn');
  assert.deepEqual(
    [s.shape, s.name, s.default.value, s.ignoreIfExists],
    ['expression', 'total', '@sql(price * qty)', true],
  );
  const t = one("ADD COLUMN 'int total' EXPRESSION '5'", 'AddColumn');
  assert.deepEqual([t.typeName, t.name, t.default.value], ['int', 'total', '5']);
});

test('ZIP COLUMN with FORMAT and BATCH', () => {
  assert.deepEqual(plain(one("ZIP COLUMN 'doc' FORMAT JSON BATCH 100", 'ZipColumn')), {
    kind: 'ZipColumn',
    column: q('doc'),
    format: 'JSON',
    batch: 100,
    keyword: 'ZIP COLUMN',
    source: "ZIP COLUMN 'doc' FORMAT JSON BATCH 100",
  });
  const z = one("ZIP COLUMN 'doc' BATCH 1 FORMAT 'xml'", 'ZipColumn');
  assert.deepEqual([z.format, z.batch], ['XML', 1]);
});

test('EXEC ON DB with PER_ROW', () => {
  const s = one('EXEC ON DB [wh] ( insert into log select * from @pipelinedata() ) PER_ROW', 'ExecOnDb');
  assert.deepEqual(plain(s), {
    kind: 'ExecOnDb',
    connection: { name: 'wh' },
    sql: b(' insert into log select * from @pipelinedata() '),
    perRow: true,
    keyword: 'EXEC ON DB',
    source: 'EXEC ON DB [wh] ( insert into log select * from @pipelinedata() ) PER_ROW',
  });
  assert.equal(one('EXEC ON DB [wh] (select 1)', 'ExecOnDb').perRow, false);
});

test('CAPTURE with every keyword and WITH option', () => {
  const text =
    "CAPTURE 'orders.eds' INSERTS UPDATES DELETES ON KEYS 'id,region' OBSERVE 'price' WITH INIT_ON_FIRST_RUN IGNORE_DUPS PATH [lake] 'cdc' CDCMARKER 'op' ENCRYPT_CERT 'AB:CD' SIGN_CERT 'ef01'";
  assert.deepEqual(plain(one(text, 'Capture')), {
    kind: 'Capture',
    name: q('orders.eds'),
    inserts: true,
    updates: true,
    deletes: true,
    keys: q('id,region'),
    observe: q('price'),
    initOnFirstRun: true,
    ignoreDups: true,
    path: { connection: { name: 'lake' }, folder: q('cdc') },
    cdcMarker: q('op'),
    encryptCert: q('AB:CD'),
    signCert: q('ef01'),
    keyword: 'CAPTURE',
    source: text,
  });
  const bare = one('CAPTURE', 'Capture');
  assert.deepEqual([bare.name, bare.keys, bare.inserts], [undefined, undefined, false]);
  assert.deepEqual(plain(one("CAPTURE WITH PATH 'c:/cdc'", 'Capture').path), { folder: q('c:/cdc') });
});

test('PUSH INTO HTTP with both sections, their options, TRACE sub-options and WITH options', () => {
  const text = `PUSH INTO HTTP [shop api]
    ON_UPSERT (PUT /items/{{id}}) HEADERS '[{"X-Key":"#trygetvar(key)"}]' CONTENT_TYPE 'application/json'
      PAYLOAD ([@concatjson({ "id": {{id}}, "name": "{{name}}" })]) CONTINUE_ON_HTTP '409' THROW_ON_REGEX 'error'
      RETRY_ONREGEX 'busy|later' RETRY_PATH 'status' RETRY_INTERVAL 1 RETRY_COUNT 2
      TRACE INTO [trace] TABLE 'push_trace' WITH_PAYLOAD ADD_TRACKING_FIELDS TRUNCATE
        STAGE ON [blob] 'staging' CREDENTIALS 'sas' EXEC (delete from push_trace where d < 1)
    ON_DELETE (DELETE /items/{{id}}) RETRY_ON 'locked'
    WITH DISCARD_ON_SUCCESS DISCARD_ON_ERROR DLQ_ON_ERROR 'failed' RETRY EXPONENTIAL (3, 10) TIMEOUT 60 BATCH 50`;
  const s = one(text, 'PushHttp');
  assert.deepEqual(plain(s.connection), { name: 'shop api' });
  assert.deepEqual(plain(s.onUpsert), {
    command: { verb: 'PUT', target: b('/items/{{id}}') },
    headers: q('[{"X-Key":"#trygetvar(key)"}]'),
    contentType: q('application/json'),
    payload: b('[@concatjson({ "id": {{id}}, "name": "{{name}}" })]'),
    continueOnHttp: q('409'),
    throwOnRegex: q('error'),
    retryOnRegex: q('busy|later'),
    retryPath: q('status'),
    retryInterval: 1,
    retryCount: 2,
    trace: {
      connection: { name: 'trace' },
      table: q('push_trace'),
      withPayload: true,
      addTrackingFields: true,
      truncate: true,
      truncateAppend: false,
      stage: { connection: { name: 'blob' }, folder: q('staging'), credentials: q('sas') },
      exec: b('delete from push_trace where d < 1'),
    },
  });
  assert.deepEqual(plain(s.onDelete), {
    command: { verb: 'DELETE', target: b('/items/{{id}}') },
    retryOn: q('locked'),
  });
  assert.deepEqual(plain(s.options), {
    discardOnSuccess: true,
    discardOnError: true,
    dlqOnError: q('failed'),
    retry: { kind: 'EXPONENTIAL', count: 3, seconds: 10 },
    timeout: 60,
    batch: 50,
  });
  assert.ok(textAt(text, s.onDelete!.pos).startsWith('ON_DELETE'));
  assert.ok(textAt(text, s.options.retry!.pos).startsWith('EXPONENTIAL'));
});

test('PUSH INTO HTTP: only a delete section; section options may follow WITH', () => {
  const s = one("PUSH INTO HTTP ON_DELETE (POST /gone) WITH PAYLOAD ('{{id}}') BATCH 1 RETRY LINEAR (2,1)", 'PushHttp');
  assert.equal(s.onUpsert, undefined);
  assert.deepEqual(plain(s.onDelete?.payload), b("'{{id}}'"));
  assert.deepEqual(
    [s.options.batch, s.options.retry?.kind, s.options.retry?.count, s.options.retry?.seconds],
    [1, 'LINEAR', 2, 1],
  );
});

test('PUSH INTO DRIVE and SINK INTO DRIVE with every drive option', () => {
  const text =
    "PUSH INTO DRIVE [s3] FORMAT PARQUET FILE 'out/x_#now(yyyyMMdd).parquet' CONTAINER 'bucket' DATE_FIELD 'created' COMPRESSION 'snappy' ROWS_PER_GROUP 5000 WITH DISCARD_ON_SUCCESS RETRY LINEAR (1, 1)";
  const p = one(text, 'PushDrive');
  assert.deepEqual(plain(p), {
    kind: 'PushDrive',
    connection: { name: 's3' },
    format: 'PARQUET',
    drive: {
      file: q('out/x_#now(yyyyMMdd).parquet'),
      container: q('bucket'),
      dateField: q('created'),
      compression: q('snappy'),
      rowsPerGroup: 5000,
      addHeader: false,
      forceQuoted: false,
      flatten: false,
      trim: false,
      filePerRow: false,
    },
    options: { discardOnSuccess: true, discardOnError: false, retry: { kind: 'LINEAR', count: 1, seconds: 1 } },
    keyword: 'PUSH INTO DRIVE',
    source: text,
  });
  const s = one(
    "SINK INTO DRIVE FORMAT CSV FILE 'a.csv' DELIMITER ';' COMMENT_TOKENS '#' FIXED_LENGTH '5,10' DATE_FORMAT 's' ADD_HEADER FORCE_QUOTED FLATTEN TRIM",
    'SinkDrive',
  );
  assert.deepEqual(plain(s.drive), {
    file: q('a.csv'),
    delimiter: q(';'),
    commentTokens: q('#'),
    fixedLength: q('5,10'),
    dateFormat: q('s'),
    addHeader: true,
    forceQuoted: true,
    flatten: true,
    trim: true,
    filePerRow: false,
  });
  assert.equal(s.connection, undefined);
  const j = one(
    "SINK INTO DRIVE FORMAT JSON FILE 'x' FILE_PER_ROW ROOT_NODE 'items' ELEMENT 'item' COLUMN 'doc'",
    'SinkDrive',
  );
  assert.deepEqual(
    [j.drive.filePerRow, j.drive.rootNode?.value, j.drive.element?.value, j.drive.column?.value],
    [true, 'items', 'item', 'doc'],
  );
});

test('PUSH INTO DB with sections, init/completion SQL and WITH options', () => {
  const text = `PUSH INTO DB [wh] TABLE 'orders' AUTO_MERGE
    ON_UPSERT (insert into orders values ({{id}})) TIMEOUT 30 BATCH 500
    ON_DELETE (delete from orders where id = {{id}}) BATCH 1
    ON_INIT (create table if not exists orders (id int)) ON_COMPLETION (insert into runs values (@executionId, @success))
    WITH DISCARD_ON_ERROR DLQ_ON_ERROR 'dlq'`;
  assert.deepEqual(plain(one(text, 'PushDb')), {
    kind: 'PushDb',
    connection: { name: 'wh' },
    table: q('orders'),
    autoMerge: true,
    onUpsert: { sql: b('insert into orders values ({{id}})'), timeout: 30, batch: 500 },
    onDelete: { sql: b('delete from orders where id = {{id}}'), batch: 1 },
    onInit: b('create table if not exists orders (id int)'),
    onCompletion: b('insert into runs values (@executionId, @success)'),
    options: { discardOnSuccess: false, discardOnError: true, dlqOnError: q('dlq') },
    keyword: 'PUSH INTO DB',
    source: text,
  });
});

test('SINK INTO DB with each mode, REPLACE, AUTO_CLEAN and ON COLUMN', () => {
  const s = one("SINK INTO DB [wh] TABLE 'c' ON COLUMN 'xml' WITH RECREATE_APPEND REPLACE AUTO_CLEAN", 'SinkDb');
  assert.deepEqual(plain(s), {
    kind: 'SinkDb',
    connection: { name: 'wh' },
    table: q('c'),
    onColumn: q('xml'),
    mode: 'RECREATE_APPEND',
    replace: true,
    autoClean: true,
    keyword: 'SINK INTO DB',
    source: "SINK INTO DB [wh] TABLE 'c' ON COLUMN 'xml' WITH RECREATE_APPEND REPLACE AUTO_CLEAN",
  });
  for (const mode of ['TRUNCATE', 'RECREATE', 'TRUNCATE_APPEND', 'RECREATE_APPEND']) {
    assert.equal(one(`SINK INTO DB [wh] TABLE 't' ${mode}`, 'SinkDb').mode, mode);
  }
  assert.equal(one("SINK INTO DB [wh] TABLE 't'", 'SinkDb').mode, undefined);
});

test('MERGE with key columns and flags', () => {
  const text = "MERGE INTO [wh] TABLE 'customers' WITH KEY COLUMNS 'id' INSERTS UPDATES DELETES SCHEMA_DRIFT";
  assert.deepEqual(plain(one(text, 'Merge')), {
    kind: 'Merge',
    connection: { name: 'wh' },
    table: q('customers'),
    keyColumns: q('id'),
    inserts: true,
    updates: true,
    deletes: true,
    schemaDrift: true,
    keyword: 'MERGE',
    source: text,
  });
  const m = one("MERGE INTO [wh] TABLE 'log'", 'Merge');
  assert.deepEqual([m.keyColumns, m.inserts], [undefined, false]);
});

test('PRINT and EXIT { KEEP n }', () => {
  assert.deepEqual(plain(one("PRINT 'run at #utcnow()'", 'Print')), {
    kind: 'Print',
    text: q('run at #utcnow()'),
    keyword: 'PRINT',
    source: "PRINT 'run at #utcnow()'",
  });
  assert.equal(one('EXIT', 'Exit').keep, undefined);
  assert.equal(one('EXIT KEEP 0', 'Exit').keep, 0);
  assert.equal(one('exit keep 25', 'Exit').keep, 25);
});

test('a whole job script parses statement by statement', () => {
  const script = `-- reader
SELECT * FROM HTTP [api] (GET /orders) APPLY TX '$.orders' WITH PAGING 'link' PAGING_PATH '$.next';
APPLY SCHEMA (
  bigint id
  decimal(12, 2) total
);
ADD COLUMN 'datetime loaded=#utcnow()';
APPLY FILTER 'total > 0' ORDER BY 'id' LIMIT 1000;
CAPTURE 'orders' ON KEYS 'id' WITH IGNORE_DUPS;
-- writer
LOAD UPSERTS DELETES FROM 'orders';
PUSH INTO HTTP [shop] ON_UPSERT (PUT /o/{{id}}) PAYLOAD ({"total": {{total}}}) ON_DELETE (DELETE /o/{{id}}) WITH BATCH 1;
`;
  assert.deepEqual(
    parseScript(script).statements.map((s) => s.keyword),
    ['SELECT FROM HTTP', 'APPLY SCHEMA', 'ADD COLUMN', 'APPLY FILTER', 'CAPTURE', 'LOAD', 'PUSH INTO HTTP'],
  );
});

test('the payload shapes of spec 4.3 survive verbatim', () => {
  const payloads = [
    '[@concatjson({ "key": {{field}}, "name": "{{name}}" })]',
    '[@concatjsonarr([ {{f1}}, "{{f2}}" ])]',
    '<root> @concatxml(<row id="{{id}}">{{hex:blob}}</row>) </root>',
    "@sql_union(select {{id}} as id, '{{name}}' as name)",
  ];
  for (const payload of payloads) {
    const s = one(`PUSH INTO HTTP [api] ON_UPSERT (POST /batch) PAYLOAD (${payload}) WITH BATCH 100`, 'PushHttp');
    assert.deepEqual(plain(s.onUpsert?.payload), b(payload));
  }
});
