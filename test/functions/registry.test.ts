import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFunctions, familyFunctions, findFunction, functionDocs } from '../../runtime/functions/registry';
import { FUNCTION_NAMES } from '../../runtime/functions/names';
import type { Family } from '../../runtime/functions/types';
import { renderFunctionDocs } from '../../runtime/functions/docs';
import { compileTemplate, evaluateText } from '../../runtime/functions/evaluate';
import { dataset, newState } from './helpers';

/** Every function named in spec 4.4 (and the operators of 4.3). */
const SPEC_FUNCTIONS = `data.calc data.calc_hwm data.calc_hwmdate data.calc_hwmnumber data.count data.sizekb data.value
decrement increment isnotnull isnotnullorempty isnull isnullorempty pick rnddouble rndguid rndint setvar trysetvar
trygetvar statebag compress compressu compressa uncompress uncompressu uncompressa zip zipu zipa unzip unzipu unzipa
contains indexof doublequoted singlequoted unquote format frombase64 frombase64a frombase64u fromhex64 fromhex64a
fromhex64u tobase64 tobase64a tobase64u tohex64 tohex64a tohex64u hash_md5 hash_sha1 hash_sha256 hash_sha384 hash_sha512
hash_md5a hash_sha1a hash_sha256a hash_sha384a hash_sha512a hash_md5u hash_sha1u hash_sha256u hash_sha384u hash_sha512u
image2pdf image2pdfbase64 left right len ltrim rtrim trim replace reverse skip singleline substring tolower toupper
urlencode urldecode dateadd utcdateadd epoch epoch_ms formatdate utcformatdate fromepoch fromepoch_sec fromepoch_ms now
utcnow parsedate toepoch toepoch_sec toepoch_ms toiso8601 utctoiso8601 torfc1123 utctorfc1123 encrypt decrypt jsonformat
setjsonsettings parse parsejson parsexml iif last_http_headers last_http_content last_http_mediatype last_http_status
last_http_bytecount concatjson concatjsonarr concatxml sql sql_union sql_unionall sql_concat`.split(/\s+/);

test('every function of spec 4.4 has a registry entry with signature, description and example', () => {
  for (const name of SPEC_FUNCTIONS) {
    const def = findFunction(name);
    assert.ok(def, `no registry entry for ${name}`);
    assert.ok(def.signature.length > 3, `${name} has no signature`);
    assert.ok(def.description.length > 10, `${name} has no description`);
    assert.ok(def.example.length > 3, `${name} has no example`);
  }
  for (const def of allFunctions()) {
    assert.ok(
      def.names.every((n) => SPEC_FUNCTIONS.includes(n)),
      `${def.names[0]} is not a spec 4.4 function`,
    );
    assert.ok(def.family === 'operator' || def.impl, `${def.names[0]} has no implementation`);
  }
});

test("the table of names (functions/names.ts) lists each family module's definitions, no more and no fewer", () => {
  for (const family of Object.keys(FUNCTION_NAMES) as Family[]) {
    const defs = familyFunctions(family);
    for (const def of defs) assert.equal(def.family, family, `${def.names[0]} is defined in the ${family} module`);
    assert.deepEqual(
      defs.flatMap((d) => d.names).sort(),
      [...FUNCTION_NAMES[family]].sort(),
      `functions/names.ts lists the ${family} family's names`,
    );
  }
});

test('every deterministic example gives its documented output', () => {
  for (const def of allFunctions()) {
    if (def.expected === undefined || def.family === 'operator') continue;
    assert.equal(evaluateText(def.example, newState()), def.expected, `example of ${def.names[0]}: ${def.example}`);
  }
});

test('operator examples give their documented output over a two-row batch', () => {
  const ds = dataset(
    [
      ['id', 'int'],
      ['name', 'string'],
    ],
    [
      [1, 'a'],
      [2, 'b'],
    ],
  );
  for (const def of allFunctions().filter((d) => d.family === 'operator')) {
    const f = compileTemplate(def.example).bindBatch(newState(ds), ds);
    assert.equal(f(ds.rows(), 0), def.expected, def.names[0]);
  }
});

test('functionDocs lists every entry and docs/functions.md is generated from it', () => {
  assert.equal(functionDocs().length, allFunctions().length);
  const file = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'functions.md'), 'utf8');
  assert.equal(
    file,
    renderFunctionDocs(),
    'docs/functions.md is stale: run `node dist/runtime/functions/docs.js --write`',
  );
});
