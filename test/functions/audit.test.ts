import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScriptError } from '../../runtime/errors';
import { Session } from '../../runtime/session';
import { tempDir } from './helpers';

/** Runs a cell on `session` and returns the texts its PRINT statements wrote, in order. */
async function prints(session: Session, cell: string): Promise<string[]> {
  const results = await session.run(cell);
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

function newSession(): Session {
  const workspace = tempDir('fn-audit');
  return new Session({ workspace, cwd: workspace });
}

test('a rejected #setjsonsettings culture is not kept: later date functions of the session still work', async () => {
  const s = newSession();
  await assert.rejects(s.run("PRINT '#setjsonsettings(culture:xx-notaculture-ZZ)';"), /unknown culture/);
  assert.deepEqual(await prints(s, "PRINT '#formatdate(2009-06-15T13:45:30, s)';"), ['2009-06-15T13:45:30']);
});

test('#parsejson keeps every digit of long integers and decimals, alone or inside a returned object', async () => {
  const s = newSession();
  const doc = `'{"a": 12345678901234567890123, "b": {"d": 0.12345678901234567890}, "c": [1.5]}'`;
  assert.deepEqual(
    await prints(
      s,
      `PRINT '#parsejson(${doc.replace(/'/g, "''")}, a)'; PRINT '#parsejson(${doc.replace(/'/g, "''")}, b)';` +
        ` PRINT '#parse(${doc.replace(/'/g, "''")}, c[0])';`,
    ),
    ['12345678901234567890123', '{"d":0.12345678901234567890}', '1.5'],
  );
});

test('date results outside .NET DateTime (0001-01-01 to 9999-12-31) are errors, not five-digit or year-0 dates', async () => {
  const s = newSession();
  for (const call of [
    '#dateadd(9999-12-31T12:00:00, 1d)',
    '#utcdateadd(2009-06-15T13:45:30, 10000y)',
    '#dateadd(0001-01-01, -1s)',
    '#fromepoch(253402300800)',
    '#fromepoch_ms(-62135596800001)',
  ])
    await assert.rejects(s.run(`PRINT '${call}';`), /out of the date range/, call);
  assert.deepEqual(await prints(s, "PRINT '#fromepoch(253402300799)'; PRINT '#fromepoch_ms(-62135596800000)';"), [
    '9999-12-31T23:59:59',
    '0001-01-01T00:00:00',
  ]);
});

test('#jsonformat writes a number beyond a double as Json.NET does ("Infinity", a string), so the output stays JSON', async () => {
  const s = newSession();
  const [out] = await prints(s, `PRINT '#jsonformat(''{"a": 1e400, "b": [-1e999, 2.5]}'')';`);
  assert.deepEqual(JSON.parse(out), { a: 'Infinity', b: ['-Infinity', 2.5] });
});

test('#format drops the sign of a decimal that rounds to zero, as System.Decimal formatting does (0.00, not -0.00)', async () => {
  const s = newSession();
  assert.deepEqual(
    await prints(
      s,
      `PRINT '#format(''{0:N2}|{0:F2}|{0:0.00}|{0:#,##0}|{0:P0}|{0:C0}|{0:G}'', -0.001)';` +
        ` PRINT '#format(''{0:F0}|{0:0}|{0:N1}'', -0.4)'; PRINT '#format(''{0:F2}|{0:G}'', -0.00)';`,
    ),
    ['0.00|0.00|0.00|0|0 %|¤0|-0.001', '0|0|-0.4', '0.00|0.00'],
  );
});

test('#toupper/#tolower map each character to one, as .NET invariant casing does (ß stays, no final ς)', async () => {
  const s = newSession();
  assert.deepEqual(
    await prints(s, "PRINT '#toupper(straße ﬁx ıi é)'; PRINT '#tolower(ΟΔΟΣ İSTANBUL ÉA)'; PRINT '#toupper(Zoë 😀)';"),
    ['STRAßE ﬁX ıI É', 'οδοσ İstanbul éa', 'ZOË 😀'],
  );
});

test('#increment/#decrement keep a decimal scale as System.Decimal addition does (12.50 + 1 = 13.50)', async () => {
  const s = newSession();
  assert.deepEqual(
    await prints(
      s,
      "PRINT '#increment(12.50)|#decrement(1.000, 0.5)|#increment(1.10, 2.205)|#increment(2, 0.50)|#decrement(0.10, 0.10)';",
    ),
    ['13.50|0.500|3.305|2.50|0.00'],
  );
});

test('#rnddouble over bounds whose difference exceeds a double still gives a finite value in [a, b)', async () => {
  const s = newSession();
  const values = await prints(s, Array(20).fill("PRINT '#rnddouble(-1e308, 1.7e308)';").join(' '));
  for (const v of values) {
    const x = Number(v);
    assert.ok(Number.isFinite(x) && x >= -1e308 && x < 1.7e308, v);
  }
});

test('#parsejson refuses a malformed JSON path with the path, the reason and where, at the call', async () => {
  const s = newSession();
  const doc = `''{"a": {"b": [1, 2]}}''`;
  for (const [path, reason] of [
    ['$.a[', "missing ']' at character 4"],
    ['$..', "'..' is not followed by a name or \\* at character 4"],
    ['a.b]', "']' without '\\[' at character 4"],
    ['$.a.', "'\\.' is not followed by a name or \\* at character 5"],
    ['$a', "expected '\\.' or '\\[' before 'a' at character 2"],
    ['$.a[]', "empty '\\[\\]' at character 4"],
    ['$.a["b]', 'unclosed double quote at character 5'],
    ['$.a[?(@.b[0) > 1]', "'\\)' where '\\]' is expected at character 12"],
  ]) {
    const cell = `PRINT 'n';\n  PRINT '#parsejson(${doc}, ${path})';`;
    await assert.rejects(
      s.run(cell),
      (e: ScriptError) => {
        assert.match(
          e.message,
          new RegExp(`^#parsejson: invalid JSON path '${path.replace(/[$.[\]?()']/g, '\\$&')}': ${reason}$`),
        );
        assert.deepEqual([e.position?.line, e.position?.column], [2, 10]);
        return true;
      },
      path,
    );
  }
  // Well-formed paths still select, with or without `$`.
  assert.deepEqual(
    await prints(
      s,
      `PRINT '#parsejson(${doc}, a.b[1])'; PRINT '#parsejson(${doc}, $..b[0])'; PRINT '#parsejson(${doc}, $..[''b''][1])';` +
        ` PRINT '#parsejson(${doc}, $.a.b[?(@ > 1)])'; PRINT '#parsejson(${doc}, [''a''].b[0])';`,
    ),
    ['2', '1', '2', '2', '1'],
  );
});

test('#setjsonsettings names Object members (constructor, __proto__) as unknown settings, like any other word', async () => {
  const s = newSession();
  for (const key of ['constructor', '__proto__', 'hasOwnProperty'])
    await assert.rejects(
      s.run(`PRINT '#setjsonsettings(${key}:x)';`),
      new RegExp(`#setjsonsettings: unknown setting '${key.toLowerCase()}' \\(keys: nullvaluehandling, `),
    );
});

test('#jsonformat keeps a "__proto__" key as data, as JSON.parse does', async () => {
  const s = newSession();
  assert.deepEqual(await prints(s, `PRINT '#jsonformat(''{"__proto__": {"a": 1}, "b": 2}'')';`), [
    '{"__proto__":{"a":1},"b":2}',
  ]);
});

test('argument errors name the function as written, the argument (with its letter when it takes several) and the call', async () => {
  const s = newSession();
  const refused = async (call: string): Promise<string> => {
    let error: ScriptError | undefined;
    await s.run(`PRINT 'x';\nPRINT '  ${call}';`).catch((e: ScriptError) => (error = e));
    assert.deepEqual([error?.position?.line, error?.position?.column], [2, 10], call);
    return error!.message;
  };
  assert.equal(await refused('#substring(hello, x)'), "#substring: the start index (b) must be an integer, got 'x'");
  assert.equal(await refused('@SUBSTRING(hello, 1, -2)'), '@SUBSTRING: the length (c) must be 0 or more, got -2');
  assert.equal(await refused('#indexof(hello, l, x)'), "#indexof: the start index (c) must be an integer, got 'x'");
  assert.equal(await refused('#parse(a;b, x)'), "#parse: the row (b) must be an integer, got 'x'");
  assert.equal(await refused('#fromepoch_sec(soon)'), "#fromepoch_sec: the epoch (a) must be a number, got 'soon'");
  assert.match(await refused('#toepoch(later, 1)'), /^#toepoch: the date \(a\): 'later' is not a date/);
  assert.equal(
    await refused('#parsedate(2024, 1)'),
    "#parsedate: the input format (b): '1' is not a standard date format",
  );
  // Text beyond a double is refused where it is read, not carried on as Infinity.
  assert.equal(await refused('#rnddouble(1e999, 1)'), "#rnddouble: a is beyond a double, got '1e999'");
  assert.equal(await refused('#increment(-1e400)'), "#increment: a is beyond a double, got '-1e400'");
  // An empty name or thumbprint is said as such, not looked up.
  assert.equal(await refused('#setvar(, 1)'), '#setvar: the variable name (a) is empty');
  assert.match(
    await refused('#encrypt(, text)'),
    /^#encrypt: the thumbprint is empty \(known: none: add PEM files to /,
  );
});
