import { COMMANDS } from './commands';
import { NESTING_LIMIT } from './limits';
import { DB_SECTION_OPTIONS, HTTP_SECTION_OPTIONS, TRACE_OPTIONS, type OptionDef, type OptionSet } from './options';

/**
 * The statement reference, built from the command and option tables the parser uses. The kernel's
 * inspect and %help read `statementDocs`; docs/language.md is `languageReference()` given the statements
 * the interpreter cannot run yet (runtime/services/language-docs.ts writes it; a test checks the file is
 * current).
 */

export interface OptionDoc {
  name: string;
  syntax: string;
  description: string;
}

export interface StatementDoc {
  keyword: string;
  syntax: string;
  description: string;
  example: string;
  options: OptionDoc[];
}

function optionDocs(set: OptionSet<never>): OptionDoc[] {
  return set.options.map((o: OptionDef<never>) => ({
    name: o.name,
    syntax: `${o.spellings.map((s) => s.map((t) => t.name).join(' ')).join(' | ')} ${o.arg}`.trim(),
    description: o.doc,
  }));
}

export const statementDocs: StatementDoc[] = COMMANDS.map((c) => ({
  keyword: c.keyword,
  syntax: c.syntax,
  description: c.description,
  example: c.example,
  options: optionDocs(c.options),
}));

const INTRODUCTION = `# SQL CDC language reference

This file is generated from the parser's command and option tables (\`runtime/script/commands.ts\`,
\`runtime/script/options.ts\`); do not edit it by hand — run \`node dist/runtime/services/language-docs.js\`.
Functions (\`#f()\`, \`@f()\`) and the filter expression language have their own references.

## Lexical rules

- A script is a list of statements separated by \`;\`. The last statement may omit its \`;\`.
- Keywords are case-insensitive: \`select * from http\` is \`SELECT * FROM HTTP\`.
- \`--\` starts a comment that runs to the end of the line, except inside strings and blocks.
- Strings are single-quoted and may span lines; \`''\` is a quote inside one (\`'it''s'\`). There is no
  other escape: \`{{field}}\`, \`#f()\` and \`@f()\` inside strings are kept as written and evaluated by
  the command.
- Connection names are written in brackets and may contain spaces: \`[my api]\`. They end on their line.
- Parenthesised blocks — \`(GET /path?x={{id}})\`, \`PAYLOAD ( … )\`, native SQL \`( select … )\`,
  \`APPLY TX (..docs)\`, \`APPLY SCHEMA ( … )\`, \`APPLY PIPELINE ( … )\` — are kept verbatim. Nested
  parentheses balance; \`'…'\` and \`"…"\` inside a block are skipped when looking for the closing \`)\`, so
  a lone apostrophe in a block must be paired (in an XML payload write \`&apos;\`). A \`--\` at the start of
  a block line or after a space hides the rest of that line from the search for \`)\` (so \`don't\` in a SQL
  comment is harmless), but the comment stays in the block text: the database sees it.
- Functions may be nested and take unquoted arguments: \`#urlencode(#toiso8601(#utcnow()))\`,
  \`#pick(lamp,fridge,door)\`. Where a quoted value is expected, a bare function call or \`{{field}}\` is
  accepted too (\`PRINT #utcnow()\`).
- Options follow a command's fixed part in any order, each at most once. \`WITH\` before them is optional
  and may appear anywhere among them.
- Tolerated spellings: \`INSERT|UPDATE|DELETE\` and \`INSERTS|UPDATES|DELETES\`; \`UPSERTS\` (and
  \`UPSERT\`) in LOAD; \`KEY_COLUMNS\` and \`KEY COLUMNS\`; \`FORMAT CSV\` and \`FORMAT 'CSV'\`;
  \`APPLY TX 'path'\` and \`APPLY TX (path)\`; \`SELECT FROM\` without \`*\`; \`PUSH HTTP\`, \`SINK DB\`… without
  \`INTO\`; \`CONTINUE_ON_HTTP\` and \`CONTINUE_ON_HTTPERROR\` in both APPLY HTTP and PUSH sections.

## Errors

A statement that does not parse stops the cell before anything runs, the cell's magic lines included
(a \`%reset\` or \`%var set\` above a typo does not take effect). The error names the statement,
the line and column (in the whole cell, magic lines included) and what was expected, e.g.
\`APPLY FILTER at line 3, column 22: expected ';' or an option of APPLY FILTER (ON, LIMIT, …) but found 'FOO'\`.
Unknown options, repeated options, bad numbers, unknown modes and formats and missing required options
are reported the same way, and so are the errors of magic lines (docs/session.md, "Magics").
Lines end at \`\\n\`, \`\\r\\n\` or a lone \`\\r\` (old Mac files), as JavaScript, Python and PostgreSQL count
them: positions, carets, \`--\` comments, APPLY SCHEMA's one-column lines, a \`%%\` cell magic's first
line, and completion in a notebook or the REPL (magic lines, after a comment) are the same whichever a
script uses.

**A missing required part** (FORMAT of SINK/PUSH INTO DRIVE and ZIP COLUMN, FILE of SINK INTO DRIVE,
TABLE of SINK INTO DB, MERGE and TRACE, ON of APPLY FILTER REGEX/XPATH/TX, the sections of PUSH INTO HTTP
and PUSH INTO DB) is reported where it was expected: right after the statement's last token (where its
\`;\` stands), or after the last token of the TRACE clause, since options come in any order and the
statement ends without it. \`SINK INTO DRIVE FILE 'o.csv';\` gives \`SINK INTO DRIVE at line 1, column 25:
SINK INTO DRIVE needs FORMAT <PARQUET|CSV|JSON|NDJSON|XML|RAW>\`; a word that is there but wrong
(\`SINK INTO DRIVE CSV …\`) is reported at that word.

**A missing \`;\`.** When a statement runs into the start of the next one — a command word that cannot
continue it (\`PRINT\` after \`PRINT 'a'\`), a command head none of its clauses starts with (\`APPLY FILTER\`
after a SELECT, whose clauses are \`APPLY TX\` and \`APPLY PIPELINE\`), a clause it already has, or a
statement on its own line that reads on further than the clause it could also begin — the error is
\`expected ';' after SELECT FROM DRIVE (line 1)\`, with the caret right after the last token of the
statement that lacks the \`;\` and the line where that statement starts:

\`\`\`
SELECT * FROM DRIVE 'd.csv'
APPLY FILTER 'id > 1';
\`\`\`

gives \`SELECT FROM DRIVE at line 1, column 28: expected ';' after SELECT FROM DRIVE (line 1)\`. A word that
can continue the statement keeps the message about that clause: \`SELECT * FROM DRIVE 'd.csv' APPLY FOO\`
gives \`expected TX or PIPELINE after APPLY but found 'FOO'\`.

**Nesting limit: ${NESTING_LIMIT} levels.** Three things nest, each counted on its own: \`APPLY PIPELINE\`
inside \`APPLY PIPELINE\` (a SELECT's inline pipeline is a level too); function calls inside function
calls in a text (\`#f(#g(…))\`, calls in quoted arguments included); and, in a filter or \`@sql()\`
expression, parentheses, function calls, \`IN\` lists, \`NOT\` and signs. One level more is the error
\`nested too deeply (limit ${NESTING_LIMIT})\` at the level that goes past it (for a pipeline when the cell is parsed,
for a text or an expression when its statement starts). The limit keeps every layer nested that deep
at once well inside the interpreter's stack. Chains of operators are not nesting and have no limit:
a filter of ten thousand \`… OR …\` terms or a sum of ten thousand terms runs.

## Multi-line input (REPL, Jupyter console)

A cell is *complete* when it is empty or ends with a \`;\` outside strings, blocks and comments;
*incomplete* while a string, a \`( … )\` block or a \`{{\` is open or the last statement has no \`;\` yet
(the prompt continues, indented inside a block); *invalid* when no continuation can make it parse (a
stray \`)\`, an unclosed \`[\`, a failing earlier statement, a line that does not start a command) — it is
run so that the error shows.
`;

function table(rows: OptionDoc[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| Option | Meaning |',
    '|---|---|',
    ...rows.map((r) => `| \`${esc(r.syntax)}\` | ${esc(r.description)} |`),
  ].join('\n');
}

function section(title: string, set: OptionSet<never>): string {
  return `### ${title}\n\n${table(optionDocs(set))}\n`;
}

/** What a statement the interpreter parses but cannot run yet says in its docs and its inspect text. */
export function notAvailableNote(keyword: string): string {
  return `Not available yet: ${keyword} parses, but running it fails with "not supported yet: ${keyword}".`;
}

/** `unavailable`: the keywords of statements that parse but do not run yet. */
export function languageReference(unavailable: ReadonlySet<string>): string {
  const parts = [INTRODUCTION, '## Statements\n'];
  for (const doc of statementDocs) {
    const note = unavailable.has(doc.keyword) ? `**${notAvailableNote(doc.keyword)}**\n\n` : '';
    parts.push(`### ${doc.keyword}\n\n${note}${doc.description}\n\n\`\`\`\n${doc.syntax}\n\`\`\`\n`);
    if (doc.options.length) parts.push(`${table(doc.options)}\n`);
    parts.push(`Example:\n\n\`\`\`sql\n${doc.example}\n\`\`\`\n`);
  }
  parts.push('## Sub-options\n');
  parts.push(section('ON_UPSERT / ON_DELETE sections of PUSH INTO HTTP', HTTP_SECTION_OPTIONS));
  parts.push(section('ON_UPSERT / ON_DELETE sections of PUSH INTO DB', DB_SECTION_OPTIONS));
  parts.push(section('TRACE INTO (APPLY HTTP, SELECT FROM HTTP, PUSH INTO HTTP sections)', TRACE_OPTIONS));
  return parts.join('\n');
}
