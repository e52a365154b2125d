import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionDocs, type FunctionDoc } from './registry';
import type { Family } from './types';

/**
 * docs/functions.md is generated from the registry (a test checks the file matches), so the
 * reference cannot drift from the code. Regenerate: `node dist/runtime/functions/docs.js --write`.
 */
const INTRO = `# Functions

<!-- Generated from runtime/functions/registry.ts by runtime/functions/docs.ts; do not edit by hand.
     Regenerate with: npx tsc -p . && node dist/runtime/functions/docs.js --write -->

Functions compute values anywhere a SQL CDC text is evaluated: \`PRINT\`, column defaults (\`ADD COLUMN\`,
\`APPLY SCHEMA\`), HTTP URLs, headers and payloads, SQL commands, settings.

\`\`\`sql
PRINT 'run #rndguid() started at #utcnow(o)';
ADD COLUMN 'code=@toupper({{name}})';
ADD COLUMN 'decimal total=@sql(qty * price)';
PRINT '#urlencode(#toiso8601(#utcnow()))';
\`\`\`

## Evaluation

| Notation | Evaluated | Cost |
|---|---|---|
| \`#f()\` | once per evaluation of the statement or expression context: every row gets the same value | O(1) |
| \`@f()\` | once per row where the statement works row by row | O(n) |
| \`{{field}}\` | the field of the current row | O(n) |
| \`{{@name}}\` | a pipeline variable: one value for the whole statement | O(1) |

- A \`#f()\` whose arguments use \`{{field}}\` or \`@f()\` depends on the row, so it is evaluated per row.
- Statements that re-evaluate per row or per batch item choose it themselves (spec 4.4): APPLY HTTP in
  \`left join\`/\`inner join\` processing, EXEC ON DB with \`PER_ROW\`, PUSH with \`BATCH 1\`, PUSH with
  \`BATCH N\` inside \`@concatjson\`/\`@concatjsonarr\`/\`@concatxml\`, APPLY SCHEMA with \`FX_BY_ROW\`.
- Where there is no row (PRINT, a URL of a SELECT), \`#f()\` and \`@f()\` both run once and \`{{field}}\` is
  an error.
- Function names are case-insensitive. An unknown name is an error with a suggestion
  (\`unknown function #toupr; did you mean #toupper?\`). Errors name the function as the call wrote it
  (sigil, name or alias) and its position; a wrong argument count shows the usage the same way
  (\`@hash_sha256 takes 1 argument, got 2: @hash_sha256(a)\`), and a bad argument of a function taking
  several is named by its role and its letter in the usage (\`#substring: the start index (b) must be an
  integer, got 'x'\`).
- A text compiled once: templates are parsed when a statement starts, fields are resolved to column
  positions once, and the per-row work is only the calls themselves.

## Pipeline variables

\`{{@name}}\` (any case) reads a pipeline variable. It has one value for the whole statement, so it also
works where there is no row (PRINT, the URL of a SELECT), and in the SQL of SELECT FROM DB and EXEC ON DB
it is a bind parameter like a field.

| Variable | Value |
|---|---|
| \`{{@executionId}}\` | the execution id of the run's change log: the one CAPTURE wrote or LOAD read in this run, or in an earlier notebook cell (the log a PUSH there sends); without one, the run's own execution id |
| \`{{@highwatermark}}\` | the pipeline's high watermark as its last successful run left it; null (empty text) before the first |
| \`{{@webhookurl}}\`, \`{{@webhookkey}}\` | while a \`%webhook start\` listener runs in the session: its push URL, and its access key when it has one |

An unknown name is an error listing the known ones. Inside a batch operator a variable is written as a
field is (a JSON value in \`@concatjson\`, escaped text in \`@concatxml\`, a literal in \`@sql…\`).

**The high watermark.** A call of \`#data.calc_hwm(a, b)\`, \`#data.calc_hwmdate(a, b)\` or
\`#data.calc_hwmnumber(a, b)\` returns the larger of a and b and proposes it as the next high watermark.
The run keeps the largest of its proposals and stores it, per pipeline name (so per job, per notebook
pipeline, per script), only once every statement of the run has succeeded; the next run reads it as
\`{{@highwatermark}}\`, typed as it was computed (docs/jobs.md, "The high watermark"). Each proposal is
compared with the run's largest so far the way its own function compares: one that cannot be (a
\`#data.calc_hwmdate\` after a \`#data.calc_hwm(17, 5)\`) is an error naming both values.

\`\`\`sql
SELECT * FROM HTTP [shop] (GET /orders?since=#urlencode({{@highwatermark}})) APPLY TX '$.items';
PRINT 'next: #data.calc_hwm(#data.calc(''Max(modified)''), {{@highwatermark}})';
\`\`\`

## Arguments

- Separated by commas; spaces around an argument are dropped: \`#left(hello, 2)\`.
- Written bare (\`#pick(lamp,fridge,door)\`), or in single or double quotes to keep commas, parentheses
  and spaces: \`#iif({{flag}}, 'yes, please', "no")\`. A doubled quote inside quotes is one quote. Inside a
  SQL CDC string (\`PRINT '…'\`) single quotes are doubled as usual: \`PRINT '#iif(0, ''a, b'', c)';\`.
- Calls nest: \`#urlencode(#toiso8601(#utcnow()))\`. Fields and calls also work inside quoted arguments.
- The bare word \`null\` is a null argument: \`#isnull(null, fallback)\`.
- Values keep their type through calls: \`#increment({{qty}})\` adds to a number, \`{{amount}}\` alone as a
  column default keeps the column's type; a text mixing parts is text.
- \`{{name}}\` names a field. In \`#format\`'s format string (its first argument) a field must follow \`{{\` directly
  (a letter or \`_\`); any other \`{{\` is .NET's brace escape, and \`}}\` always is: \`#format('{{0}} is {0}', x)\` gives
  \`{0} is x\`, \`#format('{{{0}}}', x)\` gives \`{x}\`. A field whose name starts with a digit is passed as an
  argument there: \`#format('{0}', {{1st}})\`. Elsewhere every \`{{…}}\` is a field, but \`{{@name}}\`, a
  pipeline variable.

## Fields and binary values

\`{{field}}\` inserts the field's invariant text (the form tables show): numbers with \`.\`, dates as
\`yyyy-MM-ddTHH:mm:ss[.fff]\`, booleans as \`true\`/\`false\`, null as an empty string (\`NULL\` in SQL
commands). A binary field is lowercase hexadecimal unless a prefix says otherwise (spec 4.3):
\`{{ascii:f}}\`, \`{{base64:f}}\`, \`{{hex:f}}\`, \`{{utf8:f}}\`, \`{{unicode:f}}\` (UTF-16LE). On a text field,
\`base64:\` and \`hex:\` encode its UTF-8 bytes and the other prefixes change nothing.

**An unclosed \`{{\`** (**decision**: the spec and reference.md are silent): a \`{{\` followed by a name
that runs into the end of the text or of its line, a single \`}\` or a \`)\` — \`{{name\`, \`{{name}\`,
\`#toupper({{name)\` — is a field missing its closing braces, and an error at that \`{{\` (as Jinja and
Handlebars report it): \`missing '}}' to close this '{{' (a field is written {{name}})\`. Any other \`{{\`
stays text, so payloads and SQL that hold braces are sent as written: \`{{"a": 1}}\`, a PostgreSQL array
literal \`'{{a,b},{c,d}}'\`, \`{{ 1\`. In \`#format\`'s format string \`{{\` remains the brace escape.

## Fields in an HTTP URL

**Decision** (the spec models encoding by hand, \`#urlencode\`; the lead's call, as Python's
\`requests\` params and psql's \`:'var'\` quote a value by where it goes): in the URL of SELECT FROM HTTP,
APPLY HTTP and PUSH INTO HTTP, a \`{{field}}\` or \`{{@variable}}\` value is one URL component. In a path
segment, a query name or value, or a fragment, every character but the unreserved ones (letters,
digits, \`-._~\`) is percent-encoded as UTF-8, so a value holding \`/ ? # & = +\` cannot add a segment, a
parameter or a fragment: \`/items/{{sku}}?q={{q}}\` with sku \`a/b\` and q \`x&y=1\` calls
\`/items/a%2Fb?q=x%26y%3D1\`. A valid \`%XX\` already in a value stays as it is, so an API's encoded cursor
(\`abc%3D%3D\`) passes unchanged (the rule of requests' \`requote_uri\`); a lone \`%\` is \`%25\`. A value
that is \`.\` or \`..\` is \`%2E\` or \`%2E%2E\`, and a path holding such an encoded dot segment is sent as
written (as curl and requests send it), so \`/items/{{id}}\` with id \`..\` calls \`/items/%2E%2E\`, not
\`/\` — URL parsers (WHATWG URL, which undici and fetch use) would resolve it as \`..\`. Whether the server
then treats \`%2E%2E\` as \`..\` is its own rule; under a connection, such a path is still checked not to
leave the base URL (docs/sources.md, "URL").

- **The URL's head is taken as written**: a field before the first \`/\`, \`?\` or \`#\` written in the
  URL (after its \`scheme://\`) is the whole URL, its base or its host — \`POST {{@webhookurl}}\`,
  \`GET {{@baseurl}}/items\`, \`GET https://{{@host}}/items\` — and is sent as it is.
- **Function results are taken as written**, so \`?since=#urlencode({{@highwatermark}})\` is encoded
  once, and a function is the way to splice a value holding \`/\` or a ready-made query as it is:
  \`/files/#trim({{path}})\`.
- A value that is exactly \`.\` or \`..\` in a path segment is still a dot segment: URL rules resolve
  \`%2E\` as well (a relative path stays under its connection's base URL, docs/sources.md).
- Drive and FTP paths (SELECT FROM DRIVE, SINK/PUSH INTO DRIVE, PATH) are file paths, not URLs: a
  field there is written as it is, and a \`/\` in it makes a folder, as in a local path.

## Batch operators (PUSH … WITH BATCH N)

\`@concatjson\`, \`@concatjsonarr\`, \`@concatxml\` and the \`@sql\` family expand their argument — a row
template — once per row of the batch and join the results; the user writes the surrounding \`[ ]\` or root
element. Inside them \`#f()\` is evaluated per row. They need a batch (BATCH N > 1) and are an error
elsewhere, except \`@sql(expression)\` in a column default, which is a value computed with the expression
language (\`bigint id2 = '@sql(CONVERT([id], ''System.Int32'') * 2)'\`).

Decision (spec 4.3 item 7 leaves the output of the \`@sql\` operators open):

| Operator | Rows joined with | Example output for 2 rows |
|---|---|---|
| \`@sql(INSERT … ({{id}}))\` | \`;\` and a newline, a final \`;\` | \`INSERT … (1);⏎INSERT … (2);\` |
| \`@sql_union(SELECT {{id}})\` | a newline, \`UNION\`, a newline | \`SELECT 1⏎UNION⏎SELECT 2\` |
| \`@sql_unionall(SELECT {{id}})\` | a newline, \`UNION ALL\`, a newline | \`SELECT 1⏎UNION ALL⏎SELECT 2\` |
| \`@sql_concat(({{id}}))\` | \`,\` and a newline | \`(1),⏎(2)\` — a multi-row VALUES list |

Field values are inserted as they are: quote strings in the template (\`'{{name}}'\`) as the target needs.
Outside the operators, a field in a batch payload reads the batch's first row.

## Dates

- A datetime value is a wall clock (see docs/types.md). Local functions (\`#now\`, \`#dateadd\`,
  \`#formatdate\`, \`#toiso8601\`, \`#torfc1123\`, \`#toepoch\` without the UTC flag) read it as the agent's
  local time; the \`utc\` functions read it as UTC. A text with an offset (\`Z\`, \`+02:00\`) is an instant
  and is converted to the function's zone first. Accepted texts: ISO 8601, \`MM/dd/yyyy [HH:mm[:ss]]\`,
  \`/Date(ms)/\`, RFC 1123.
- A local wall clock that a daylight-saving change makes ambiguous (New York's 01:30 on 2026-11-01 happens
  twice) or skips (02:30 on 2026-03-08 never happens) reads as **standard time**, as .NET's
  \`TimeZoneInfo.GetUtcOffset\` and \`DateTime.ToUniversalTime\` do: \`#toiso8601(2026-11-01T01:30:00)\` is
  \`2026-11-01T01:30:00.0000000-05:00\` and \`#toepoch\` of it is the same instant, 06:30 UTC; a skipped time
  is not an error (.NET's \`ToUniversalTime\` does not throw either). The standard offset is the smaller of
  the offsets either side of the change. Every local function (\`#toiso8601\`, \`#toepoch\`, \`#torfc1123\`,
  \`#formatdate\`, \`#dateadd\`, \`#jsonformat\`'s local dates) uses this one rule.
- Date functions return text; without a format it is \`s\` (\`yyyy-MM-ddTHH:mm:ss\`, reference C.2).
- \`#dateadd\` spans: a number and a unit — \`y\` years, \`m\` months, \`d\` days, \`h\` hours, \`n\` minutes,
  \`s\` seconds — several may follow each other (\`1d12h\`); a leading \`-\` subtracts all. Arithmetic is on
  the wall clock as .NET's \`DateTime.Add*\` does (adding \`1d\` across a DST change keeps the clock time;
  adding a month to Jan 31 gives the last day of February).
- \`R\`/\`r\`, \`u\` and \`U\` always print UTC (a local value is converted), so the text is true;
  \`o\` prints the local offset (\`+02:00\`) for local values and \`Z\` for UTC ones.
- \`#fromepoch\` and \`#fromepoch_ms\` return UTC date/times.
- Precision is the millisecond: \`fffffff\` prints the milliseconds and four zeros.
- Dates range from 0001-01-01T00:00:00 to 9999-12-31T23:59:59, as .NET's \`DateTime\`: a result outside
  (\`#dateadd(9999-12-31, 1d)\`, \`#fromepoch(253402300800)\`) is an error.

## Formats and culture

Date formats: standard \`d D f F g G M o R s t T u U Y\` and custom patterns (\`d\`…\`dddd\`, \`f\`…\`fffffff\`,
\`F\`…\`FFFFFFF\`, \`g\`, \`h\` \`hh\` \`H\` \`HH\`, \`K\`, \`m\` \`mm\`, \`M\`…\`MMMM\`, \`s\` \`ss\`, \`t\` \`tt\`, \`y\`…\`yyyyy\`,
\`z\` \`zz\` \`zzz\`, \`:\` \`/\`, \`'literal'\`, \`\\c\`, \`%c\`). Numeric formats: standard \`C D E F G N P R X\` with a
precision, and custom patterns (\`0 # . , % ‰ E+0\`, \`;\` sections, literals). Rounding is half away from
zero on the exact value, as .NET Core does; custom patterns on doubles first take 15 significant digits,
as .NET does. A decimal (a text argument that reads as a number is one) that rounds to zero prints
without its sign, as \`System.Decimal\` does (\`#format('{0:N2}', -0.001)\` → \`0.00\`); a double keeps it
(\`-0.00\`), as .NET Core does. \`#format\` items are \`{index[,alignment][:format]}\`, index and alignment
below 1,000,000 in size as in .NET (a larger one is a bad format); a text argument that reads as a number
(or a date) is formatted as one, since template arguments arrive as text.

Formatting uses the invariant culture unless \`#setjsonsettings(culture:fr-FR)\` (or \`currentculture\`)
says otherwise. Other cultures' names, separators and patterns come from Node's ICU data (\`Intl\`) and
can differ from .NET's tables in small details; the currency symbol stays \`¤\`.

## Variables and the statebag

- Workspace variables live in \`<workspace>/variables.json\`; manage them with the \`%var\` magic:
  \`%var set name value\`, \`%var set --encrypted name value\`, \`%var list\` (encrypted values show \`****\`),
  \`%var remove name\`. Encrypted values are stored with AES-256-GCM under the workspace key — the
  \`SQLCDC_SECRET\` environment variable when set, else \`<workspace>/secret.key\` (created with mode
  0600) — and are never written or shown in clear.
- \`#setvar\` fails on a variable that does not exist, \`#trysetvar\` then does nothing, \`#trygetvar\`
  returns its default or \`''\`. A set keeps the variable's encryption.
- \`#statebag(key)\` / \`#statebag(key, value)\`: keys are case-insensitive and live for one execution
  (one cell, one \`sqlcdc run\`). A missing key is \`''\`, or \`NULL\` when the key is written in single
  quotes (\`#statebag('k')\`) inside a SQL command — a text the statement compiles as SQL (EXEC ON DB,
  SELECT FROM DB, PUSH INTO DB scripts), where the null is rendered as the keyword \`NULL\`.
- The reserved pipeline variables may also be written bare, without braces or parentheses, as in
  reference A's SQL: \`@executionId\` (as \`{{@executionId}}\`), \`@highwatermark\`, and \`@success\`, which is
  \`true\`/\`false\` in the ON_COMPLETION SQL of PUSH INTO DB (and an error elsewhere). In SQL they are bind
  parameters like the functions. Any other \`@word\` without parentheses or braces is plain text (an
  e-mail address, a SQL Server \`@param\`): write \`{{@name}}\` for the other variables.

## Certificates

\`#encrypt\`/\`#decrypt\` use PEM files in \`<workspace>/certs\` (a certificate and its private key, in one
file or with the key in \`<name>.key\` beside it), named by thumbprint: the SHA-1 of the DER certificate
in hex (case, spaces and colons ignored). The output is CMS EnvelopedData (RSA key transport, AES-256-CBC)
in Base64, so \`openssl cms -decrypt -inform DER\` reads it, and what \`openssl cms -encrypt -outform DER\`
writes (in Base64) decrypts.

## Other decisions

- \`#urlencode\` is RFC 3986 percent-encoding of UTF-8 (space is \`%20\`); \`#urldecode\` also reads \`+\` as
  a space.
- \`#compress\` output is lowercase hex of zlib (RFC 1950) bytes; \`#zip\` output is Base64 of GZip bytes.
  ASCII variants turn characters outside ASCII into \`?\`, as .NET's ASCII encoding does.
- \`#rndint(a, b)\` and \`#rnddouble(a, b)\` return values in [a, b) (reference C.2).
- \`#singlequoted\`/\`#doublequoted\` leave an already quoted value as it is and do not escape inner quotes.
- \`#parsejson\` and \`#parse\` (on JSON) take a JSONPath (jsonpath-plus); a path without \`$\` starts at the
  root (\`items[0]\` is \`$.items[0]\`, \`..id\` is \`$..id\`). A malformed path — \`$.a[\`, \`$..\`, \`a.b]\`, \`$.a.\`,
  \`$.a[]\`, a filter whose brackets, parentheses or quotes do not balance — is an error naming the path,
  the reason and the character (\`invalid JSON path '$.a[': missing ']' at character 4\`), not a silent
  selection of something else. A path that is well formed but selects nothing returns null.
- \`#last_http_*\` fail with a clear error when no SELECT FROM HTTP has run in the session.
- \`#data.sizekb\` is an estimate: 2 bytes per character, 16 per number or date, 8 per cell slot.
- \`#image2pdf\` accepts PNG and JPEG (bytes, hex text, a file relative to the working folder, an http(s)
  URL, or an FTP file named by its URL, \`ftp://user:password@host/folder/file.png\`, or \`ftps://\` for
  explicit TLS; the password is masked in errors). The page has the image's size in points.
  **Decision**: an object of a cloud drive (S3, Azure) is not read by address — the spec names public
  URLs, FTP files and local files, and an \`s3://KEY:SECRET@…\` argument would put the key in the script;
  give the object's pre-signed https URL (S3) or its https URL with a read SAS token (Azure), which
  are public URLs of that one object. An \`s3://\` or \`az://\` argument is an error saying so.
`;

const FAMILY_TITLES: [Family, string][] = [
  ['data', 'Data functions'],
  ['string', 'String functions'],
  ['date', 'Date functions'],
  ['other', 'Other functions'],
  ['operator', 'Batch operators'],
];

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, '⏎');
}

function row(d: FunctionDoc): string {
  const names = [d.signature, ...d.aliases.map((a) => `alias \`#${a}\``)];
  const example =
    d.expected === undefined ? `\`${cell(d.example)}\`` : `\`${cell(d.example)}\` → \`${cell(d.expected)}\``;
  return `| \`${cell(names[0])}\`${names.length > 1 ? ` (${names.slice(1).join(', ')})` : ''} | ${cell(d.description)} | ${example} |`;
}

export function renderFunctionDocs(): string {
  const docs = functionDocs();
  let out = INTRO;
  for (const [family, title] of FAMILY_TITLES) {
    const list = docs.filter((d) => d.family === family).sort((a, b) => a.name.localeCompare(b.name));
    out += `\n## ${title}\n\n| Function | Description | Example |\n|---|---|---|\n`;
    for (const d of list) out += row(d) + '\n';
  }
  return out;
}

if (require.main === module && process.argv.includes('--write')) {
  const file = join(__dirname, '..', '..', '..', 'docs', 'functions.md');
  writeFileSync(file, renderFunctionDocs());
  process.stdout.write(`wrote ${file}\n`);
}
