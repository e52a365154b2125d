import type { FunctionDef } from './types';

/**
 * The batch operators of spec 4.3 (PUSH … WITH BATCH N > 1). They are not called like functions:
 * the evaluator expands their argument — a row template — once per row of the batch and joins the
 * texts (evaluate.ts OPERATOR_JOIN); `#f()` inside them is evaluated per row (spec 4.4). The user
 * writes the surrounding brackets or root element. Outside a batch `@sql(expr)` is a computed value
 * in the expression language (APPLY SCHEMA / ADD COLUMN defaults).
 *
 * Decision for the @sql family (spec 4.3 item 7 leaves the shape open): a statement per row joined
 * with `;` and a newline (@sql), or SELECTs joined with UNION / UNION ALL, or row fragments joined
 * with `,` and a newline (@sql_concat, for a multi-row VALUES list). Fields inside an operator are
 * written so the batch stays valid whatever the data holds (field-style.ts): JSON values in
 * @concatjson/@concatjsonarr (strings quoted and escaped, numbers bare, null), escaped text in
 * @concatxml, SQL literals in the @sql family (quotes doubled, NULL) — or only the escaped content when
 * the field sits inside a string literal of the template ("{{name}}", '{{name}}').
 */
function operator(
  name: string,
  quotes: string,
  signature: string,
  description: string,
  example: string,
  expected: string,
): FunctionDef {
  return {
    names: [name],
    family: 'operator',
    signature,
    arity: [1, 1],
    description,
    example,
    expected,
    raw: { quotes },
  };
}

export const operatorFunctions: FunctionDef[] = [
  operator(
    'concatjson',
    '"',
    '@concatjson(<object template>)',
    'A JSON object per row of the batch, joined with commas; write the surrounding [ ]. A bare {{field}} is a JSON value (quoted, escaped, null), inside "…" its escaped text.',
    '[@concatjson({"id": {{id}}})]',
    '[{"id": 1},{"id": 2}]',
  ),
  operator(
    'concatjsonarr',
    '"',
    '@concatjsonarr(<array template>)',
    'A JSON array per row of the batch, joined with commas; write the surrounding [ ].',
    '[@concatjsonarr([{{id}}, "{{name}}"])]',
    '[[1, "a"],[2, "b"]]',
  ),
  operator(
    'concatxml',
    '"',
    '@concatxml(<row fragment>)',
    'An XML fragment per row of the batch, concatenated; write the root element around it.',
    '<rows>@concatxml(<row id="{{id}}"/>)</rows>',
    '<rows><row id="1"/><row id="2"/></rows>',
  ),
  operator(
    'sql',
    "'",
    '@sql(<statement template | expression>)',
    'In a PUSH batch: one SQL statement per row, each ended by ; (joined by a newline). In a column default: a value computed by the expression language.',
    '@sql(INSERT INTO t VALUES ({{id}}))',
    'INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);',
  ),
  operator(
    'sql_union',
    "'",
    '@sql_union(<select template>)',
    "One SELECT per row of the batch joined with UNION. A bare {{field}} is a SQL literal (quotes doubled, NULL), inside '…' its text with quotes doubled.",
    "@sql_union(SELECT {{id}} AS id, '{{name}}' AS name)",
    "SELECT 1 AS id, 'a' AS name\nUNION\nSELECT 2 AS id, 'b' AS name",
  ),
  operator(
    'sql_unionall',
    "'",
    '@sql_unionall(<select template>)',
    'One SELECT per row of the batch joined with UNION ALL.',
    '@sql_unionall(SELECT {{id}})',
    'SELECT 1\nUNION ALL\nSELECT 2',
  ),
  operator(
    'sql_concat',
    "'",
    '@sql_concat(<row fragment>)',
    'One fragment per row joined with a comma and a newline, e.g. the rows of a multi-row VALUES list.',
    "INSERT INTO t VALUES @sql_concat(({{id}}, '{{name}}'))",
    "INSERT INTO t VALUES (1, 'a'),\n(2, 'b')",
  ),
];
