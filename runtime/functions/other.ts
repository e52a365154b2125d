import type { Value } from '../dataset/types';
import { findCertificate } from '../workspace/certificates';
import { cmsDecrypt, cmsEncrypt } from '../workspace/cms';
import { define } from './define';
import { floatsAsDecimal, jsonFormat, setJsonSettings } from './json-format';
import { parseAnyValue, parseJsonValue, parseXmlValue } from './parse-doc';
import { FunctionError, type CallContext, type FunctionDef } from './types';
import { bytesOf, text, truthy } from './values';

const O = define.bind(null, 'other');

function lastHttp(ctx: CallContext) {
  const last = ctx.scope.run.lastHttp;
  if (!last) throw new FunctionError('no SELECT FROM HTTP has run in this session yet');
  return last;
}

function decryptBase64(args: Value[], ctx: CallContext): string {
  const b64 = text(args[1]).trim();
  if (!/^[A-Za-z0-9+/\s]*={0,2}$/.test(b64) || b64 === '') throw new FunctionError('the content is not Base64');
  return cmsDecrypt(Buffer.from(b64, 'base64'), findCertificate(ctx.scope.session.workspace, text(args[0]))).toString(
    'utf8',
  );
}

const doc = (v: Value) => (v === null ? '' : text(v));

export const otherFunctions: FunctionDef[] = [
  O(
    'encrypt',
    '#encrypt(thumbprint, content)',
    2,
    'Encrypts the UTF-8 content for the workspace certificate with that SHA-1 thumbprint (<workspace>/certs); CMS EnvelopedData (AES-256) in Base64, readable by openssl cms -decrypt.',
    "#encrypt('3f2a…', secret text)",
    undefined,
    (args, ctx) =>
      cmsEncrypt(bytesOf(args[1], 'utf8'), findCertificate(ctx.scope.session.workspace, text(args[0]))).toString(
        'base64',
      ),
  ),
  O(
    'decrypt',
    '#decrypt(thumbprint, content)',
    2,
    'Decrypts Base64 CMS EnvelopedData with the certificate and its private key; returns UTF-8 text.',
    "#decrypt('3f2a…', #encrypt('3f2a…', secret text))",
    undefined,
    decryptBase64,
  ),
  O(
    'jsonformat',
    '#jsonformat(a)',
    1,
    'Parses the JSON text a and writes it again with the #setjsonsettings of the session.',
    '#jsonformat(\'{"a": 1, "b": null}\')',
    '{"a":1,"b":null}',
    (args, ctx) => jsonFormat(doc(args[0]), ctx.scope.session),
  ),
  O(
    'setjsonsettings',
    '#setjsonsettings(key:value, ...)',
    [1, Infinity],
    'Sets JSON settings for #jsonformat and the culture of formats, for the rest of the session: nullvaluehandling, culture, dateformatstring, dateformathandling, dateparsehandling, datetimezonehandling, floatparsehandling, formatting, stringescapehandling. Returns "".',
    '#setjsonsettings(formatting:indented, nullvaluehandling:ignore)',
    '',
    (args, ctx) => {
      setJsonSettings(args.map(doc), ctx.scope.session);
      return '';
    },
  ),
  O(
    'parse',
    '#parse(a, b[, c])',
    [2, 3],
    'Parses a as XML, JSON or CSV (by its first character), selects node b (XPath, JSONPath, or CSV row; null = root) and returns its attribute c by name or index, or its text.',
    '#parse(\'<r><i id="7"/></r>\', //i, id)',
    '7',
    (args, ctx) => parseAnyValue(doc(args[0]), args[1], args[2], floatsAsDecimal(ctx.scope.session)),
  ),
  O(
    'parsejson',
    '#parsejson(a, b[, c])',
    [2, 3],
    'Parses JSON a, selects JSONPath b (null = root) and returns property c by name or index (objects as JSON text).',
    '#parsejson(\'{"items":[{"id":7}]}\', items[0], id)',
    '7',
    (args, ctx) => parseJsonValue(doc(args[0]), args[1], args[2], floatsAsDecimal(ctx.scope.session)),
  ),
  O(
    'parsexml',
    '#parsexml(a, b[, c])',
    [2, 3],
    'Parses XML a, selects XPath b (null = root element) and returns attribute c by name or index (or a child element by name), or the node text.',
    '#parsexml(\'<r><i n="x">t</i></r>\', //i, 0)',
    'x',
    (args) => parseXmlValue(doc(args[0]), args[1], args[2]),
  ),
  O(
    'iif',
    '#iif(a, b, c)',
    3,
    'b, or c when a is null, empty, 0 or false. Quote b and c when they contain commas.',
    "#iif(0, yes, 'no, never')",
    'no, never',
    (args) => (truthy(args[0]) ? args[1] : args[2]),
  ),
  O(
    'last_http_headers',
    '#last_http_headers()',
    0,
    'The response headers of the last SELECT FROM HTTP, as a JSON object.',
    '#last_http_headers()',
    undefined,
    (_a, ctx) => JSON.stringify(lastHttp(ctx).headers),
  ),
  O(
    'last_http_content',
    '#last_http_content()',
    0,
    'The response body of the last SELECT FROM HTTP.',
    '#last_http_content()',
    undefined,
    (_a, ctx) => lastHttp(ctx).content,
  ),
  O(
    'last_http_mediatype',
    '#last_http_mediatype()',
    0,
    'The media type of the last SELECT FROM HTTP response.',
    '#last_http_mediatype()',
    undefined,
    (_a, ctx) => lastHttp(ctx).mediaType,
  ),
  O(
    'last_http_status',
    '#last_http_status()',
    0,
    'The HTTP status code of the last SELECT FROM HTTP.',
    '#last_http_status()',
    undefined,
    (_a, ctx) => lastHttp(ctx).status,
  ),
  O(
    'last_http_bytecount',
    '#last_http_bytecount()',
    0,
    'The body size in bytes of the last SELECT FROM HTTP response.',
    '#last_http_bytecount()',
    undefined,
    (_a, ctx) => lastHttp(ctx).byteCount,
  ),
];
