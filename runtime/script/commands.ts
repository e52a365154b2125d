import type { IToken, TokenType } from 'chevrotain';
import type { BodyRule, StatementBody } from './grammar';
import * as O from './options';
import type { OptionSet } from './options';
import { KW, Star, type KeywordName } from './tokens';

/**
 * Every command: the keywords that start it (its head), the grammar rule of the rest, its options and
 * its documentation. The parser identifies statements from `heads`; %help, the kernel's inspect and
 * docs/language.md read the documentation from here, so they cannot drift from the grammar.
 */
export interface CommandDef {
  /** Canonical name shown in errors and docs. */
  keyword: string;
  /** Accepted heads; `*?` is an optional `*`, `WORD?` an optional keyword. */
  heads: string[];
  rule: BodyRule;
  options: OptionSet<never>;
  syntax: string;
  description: string;
  example: string;
  /** Flags carried by the head itself (ADD OR ALTER COLUMN). */
  fromHead?(node: StatementBody, head: IToken[]): void;
}

export const COMMANDS: CommandDef[] = [
  {
    keyword: 'SELECT FROM HTTP',
    heads: ['SELECT *? FROM HTTP'],
    rule: 'selectHttp',
    options: O.SELECT_HTTP,
    syntax: `SELECT * FROM HTTP { [CONN] } (<GET|POST|PUT|PATCH|DELETE> <relative path or URL>)
    { APPLY TX <'path' | (path)> } { WITH } { options } { APPLY PIPELINE ( <statements> ) } ;`,
    description:
      'Calls an HTTP endpoint. Without APPLY TX the dataset is one row: the payload, status, headers and elapsed ms; ' +
      'with APPLY TX the payload becomes rows. With PAGING the call repeats per page and an inner APPLY PIPELINE runs once per page.',
    example: `SELECT * FROM HTTP [orders api] (GET /orders?since={{@highwatermark}})
    APPLY TX '$.items'
    WITH PAGING 'page' PAGING_PARAM 'page' TIMEOUT 30;`,
  },
  {
    keyword: 'SELECT FROM DB',
    heads: ['SELECT *? FROM DB'],
    rule: 'selectDb',
    options: O.SELECT_DB,
    syntax: 'SELECT * FROM DB [CONN] ( <native SQL> ) { APPLY PIPELINE ( <statements> ) } ;',
    description:
      "Runs a query on a SQLite or PostgreSQL connection; its rows become the dataset, typed from the engine's column types. " +
      'Rows are read in pages of 10,000 and an inner APPLY PIPELINE runs once per page. #f() and @f() in the SQL are bind ' +
      "parameters; @pipelinedata() is a table of the pipeline's rows.",
    example:
      "SELECT * FROM DB [warehouse] ( select id, name from customers where updated_at > #trygetvar('since', '2000-01-01') );",
  },
  {
    keyword: 'SELECT FROM DRIVE',
    heads: ['SELECT *? FROM DRIVE'],
    rule: 'selectDrive',
    options: O.SELECT_DRIVE,
    syntax:
      "SELECT * FROM DRIVE { [CONN] } '<file or glob>' { FORMAT <CSV|JSON|NDJSON|XML|RAW|PARQUET> } { OPTIONS '…' } { APPLY TX … }\n" +
      "    { WITH RAWCOL '<column>' } { APPLY PIPELINE ( <statements> ) } ;",
    description:
      'Reads files. Without a connection the path is local, relative to the working directory (in Jupyter, the notebook folder); ' +
      "with one, it is under a drive connection's folder or on an FTP site. Without FORMAT the file extension decides.",
    example: "SELECT * FROM DRIVE 'data/orders-*.csv' FORMAT CSV OPTIONS 'headers:1 delimiter:;';",
  },
  {
    keyword: 'LOAD',
    heads: ['LOAD'],
    rule: 'load',
    options: O.LOAD,
    syntax: `LOAD { UPSERTS | INSERTS | UPDATES } { DELETES } FROM { [CONN] } '<name>' { PATH { [CONN] } '<folder>' }
    { WITH { KEY_COLUMNS '<c,…>' } { CHECK_SIGNATURE } { PREVIEW_FILE '<file>' } { INITIAL_ID '<id>' } } ;`,
    description:
      "Reads a change log written by CAPTURE. A name without extension takes the next change log after the writer's high watermark. " +
      'The stream keywords say which streams are read (singular forms are accepted too).',
    example: "LOAD UPSERTS DELETES FROM 'orders' WITH KEY_COLUMNS 'id';",
  },
  {
    keyword: 'APPLY TX',
    heads: ['APPLY TX'],
    rule: 'applyTx',
    options: O.APPLY_TX,
    syntax: "APPLY TX <'path' | (path) | 'csv options'> { ON '<column>' } ;",
    description:
      "Turns a JSON/XML document (the dataset's payload, or the ON column) into rows with a document path: `$` the root, " +
      '`..docs` every docs node, `parent || child` a self-join. With CSV options it parses a text column as CSV.',
    example: "APPLY TX (..docs) ON 'payload';",
  },
  {
    keyword: 'APPLY SCHEMA',
    heads: ['APPLY SCHEMA'],
    rule: 'applySchema',
    options: O.APPLY_SCHEMA,
    syntax: `APPLY SCHEMA (
    { type } name { |description { |default } }
    { type } name = '<default>'
    …
) { CONTINUE_ON_ERROR } { STRICT_COLUMNS } { FX_BY_ROW } ;`,
    description:
      'Sets column types (spec 2.6 names, e.g. `decimal(10, 2)`, `string[50]`, `byte[]`) and defaults; one column per line. ' +
      'A default may be a constant, #f(), @f(), {{field}} or @sql(expr); a quoted default runs to the last quote of its line. ' +
      'A name with spaces goes in brackets (`[unit price]`). Columns may also be separated by commas; `--` after a space starts a comment.',
    example: `APPLY SCHEMA (
    bigint id
    string[50] name |customer name
    decimal(10, 2) total = '0'
    bigint id2 = '@sql(CONVERT([id], 'System.Int32') * 2)'
) STRICT_COLUMNS;`,
  },
  {
    keyword: 'APPLY PIPELINE',
    heads: ['APPLY PIPELINE'],
    rule: 'applyPipeline',
    options: O.APPLY_PIPELINE,
    syntax: 'APPLY PIPELINE ( <statements separated by ;> ) { BREAK_ON_EMPTY } { BYPASS } ;',
    description:
      'Runs a group of statements. Inside a SELECT it runs once per page of data; as a statement it runs once.',
    example: `APPLY PIPELINE (
    ADD COLUMN 'loaded=#utcnow()';
    APPLY FILTER 'total > 0'
) BREAK_ON_EMPTY;`,
  },
  {
    keyword: 'APPLY HTTP',
    heads: ['APPLY HTTP'],
    rule: 'applyHttp',
    options: O.APPLY_HTTP,
    syntax: `APPLY HTTP { [CONN] } (<verb> <path>) { APPLY TX … } { WITH
    { PAGING '…' { PAGING_PARAM '…' } { PAGING_PATH '…' } } { TIMEOUT n } { HEADERS '…' }
    { PAYLOAD (…) } { CONTENT_TYPE '…' } { RETURN_BYTES }
    { PROCESSING <'continue'|'replace'|'inner join'|'left join'|'enhance'> } { WHEN '<filter>' }
    { SHIFT_ROWS n } { CONTINUE_ON_ERRORS } { CONTINUE_ON_HTTPERROR '<codes>' }
    { RETRY_ON '…' | RETRY_ONREGEX '…' } { RETRY_PATH '…' } { RETRY_INTERVAL n } { RETRY_COUNT n } }
    { TRACE INTO [CONN] TABLE '…' { WITH_PAYLOAD } { ADD_TRACKING_FIELDS } { TRUNCATE | TRUNCATE_APPEND } } ;`,
    description:
      'Calls an HTTP endpoint from inside a pipeline. PROCESSING continue calls once and keeps the dataset, replace replaces it ' +
      'with the response, enhance adds response columns, inner join / left join call once per row. ' +
      'With PAGING each call reads every page of its answer.',
    example: `APPLY HTTP [crm] (POST /customers/{{id}}/notes)
    WITH PAYLOAD ({ "text": "{{note}}" }) CONTENT_TYPE 'application/json' PROCESSING 'left join';`,
  },
  {
    keyword: 'APPLY FILTER',
    heads: ['APPLY FILTER'],
    rule: 'applyFilter',
    options: O.APPLY_FILTER,
    syntax: `APPLY FILTER { SQL | REGEX | XPATH | TX } <'<expression>' | (<expression>)> { ON '<column>' } { LIMIT n }
    { ORDER BY '<col> [ASC|DESC], …' } { KEEP_EMPTY } { KEEP_INVALID } { CASE_INSENSITIVE } { SINGLE_LINE } ;`,
    description:
      'Keeps the rows that match. SQL (the default) is a WHERE clause in the DataColumn.Expression language; REGEX, XPATH and TX ' +
      'test the ON column (required for them).',
    example: "APPLY FILTER REGEX '^[A-Z]{3}-\\d+$' ON 'code' CASE_INSENSITIVE LIMIT 100;",
  },
  {
    keyword: 'ADD COLUMN',
    heads: ['ADD COLUMN', 'ADD OR ALTER COLUMN'],
    rule: 'addColumn',
    options: O.ADD_COLUMN,
    syntax: `ADD { OR ALTER } COLUMN <'{ type } name=<default>' | (name='<default>')>
    { FORMAT <JSON|XML|CSV> { INCLUDE { NOT } '<cols>' } { EXCLUDE '<cols>' } { COLLAPSE } { WHEN '<filter>' } { OPTIONS '…' } }
    { WITH { IGNORE_IF_EXISTS } { CONTINUE_ON_ERROR } } ;
ADD COLUMN '{ type } name' WITH EXPRESSION '<default>' { IGNORE_IF_EXISTS } ;`,
    description:
      'Adds a column (a string unless a type is given) whose value is the default: a constant, #f(), @f(), {{field}} or @sql(expr). ' +
      'OR ALTER changes an existing column instead of failing. FORMAT builds a JSON/XML/CSV fragment per row. ' +
      "The name is the last word before `=` (the words before it are the type); a name with spaces goes in brackets: `'[unit price]=0'`.",
    example: `ADD OR ALTER COLUMN 'datetime loaded=#utcnow()';
ADD COLUMN (doc='') FORMAT JSON INCLUDE 'id,name' COLLAPSE WITH IGNORE_IF_EXISTS;`,
    fromHead(node, head) {
      if (node.kind === 'AddColumn') node.orAlter = head.some((t) => t.tokenType === KW.OR);
    },
  },
  {
    keyword: 'ZIP COLUMN',
    heads: ['ZIP COLUMN'],
    rule: 'zipColumn',
    options: O.ZIP_COLUMN,
    syntax: "ZIP COLUMN '<column>' FORMAT <CSV|JSON|XML> { BATCH n } ;",
    description:
      'Collapses the column of all rows, or of batches of n rows, into complete documents: afterwards each row is one batch.',
    example: "ZIP COLUMN 'doc' FORMAT JSON BATCH 100;",
  },
  {
    keyword: 'EXEC ON DB',
    heads: ['EXEC ON DB'],
    rule: 'execOnDb',
    options: O.EXEC_ON_DB,
    syntax: 'EXEC ON DB [CONN] ( <native SQL; @pipelinedata() names the pipeline rows as a table> ) { PER_ROW } ;',
    description:
      'Runs SQL on a database connection for its effects, once, or once per row with PER_ROW (in one transaction). ' +
      '{{field}}, #f() and @f() are sent as bind parameters, never spliced into the SQL: write them bare, not inside quotes.',
    example:
      'EXEC ON DB [warehouse] ( update customers set last_order = {{ordered_at}} where id = {{customer_id}} ) PER_ROW;',
  },
  {
    keyword: 'CAPTURE',
    heads: ['CAPTURE'],
    rule: 'capture',
    options: O.CAPTURE,
    syntax: `CAPTURE { '<change log name>' } { INSERTS } { UPDATES } { DELETES } { ON KEYS '<col,…>' } { OBSERVE '<col,…>' }
    { WITH { INIT_ON_FIRST_RUN } { IGNORE_DUPS } { PATH { [CONN] } '<folder>' } { CDCMARKER '<field>' }
           { ENCRYPT_CERT '<thumbprint>' } { SIGN_CERT '<thumbprint>' } } ;`,
    description:
      'Persists the dataset as a change log. With ON KEYS only the changes since the last capture are kept (synthetic CDC). ' +
      'A name with an extension is fixed and overwritten; without one each run writes a new log. At most one per pipeline.',
    example: "CAPTURE 'orders' INSERTS UPDATES DELETES ON KEYS 'id' WITH IGNORE_DUPS CDCMARKER 'op';",
  },
  {
    keyword: 'PUSH INTO HTTP',
    heads: ['PUSH INTO? HTTP'],
    rule: 'pushHttp',
    options: O.PUSH_HTTP,
    syntax: `PUSH INTO HTTP { [CONN] }
    { ON_UPSERT (<verb> <path>) { section options } }
    { ON_DELETE (<verb> <path>) { section options } }
    { WITH { DISCARD_ON_SUCCESS } { DISCARD_ON_ERROR } { DLQ_ON_ERROR '<folder>' }
           { RETRY <LINEAR|EXPONENTIAL> (n,p) } { TIMEOUT n } { BATCH n } } ;`,
    description:
      'Sends the upsert and/or delete streams of the change log to an HTTP endpoint. Section options: HEADERS, CONTENT_TYPE, ' +
      'PAYLOAD, CONTINUE_ON_HTTP, THROW_ON_REGEX, RETRY_ON, RETRY_ONREGEX, RETRY_PATH, RETRY_INTERVAL, RETRY_COUNT, TRACE.',
    example: `PUSH INTO HTTP [shop api]
    ON_UPSERT (PUT /items/{{id}}) PAYLOAD ({ "name": "{{name}}" }) CONTENT_TYPE 'application/json'
    ON_DELETE (DELETE /items/{{id}}) CONTINUE_ON_HTTP '404'
    WITH BATCH 1 RETRY LINEAR (3, 5) DLQ_ON_ERROR 'failed';`,
  },
  {
    keyword: 'PUSH INTO DRIVE',
    heads: ['PUSH INTO? DRIVE'],
    rule: 'pushDrive',
    options: O.PUSH_DRIVE,
    syntax: `PUSH INTO DRIVE { [CONN] } FORMAT <PARQUET|CSV|JSON|NDJSON|XML|RAW> { FILE '…' } { drive options }
    { WITH { DISCARD_ON_SUCCESS } { DISCARD_ON_ERROR } { DLQ_ON_ERROR '…' } { RETRY <LINEAR|EXPONENTIAL> (n,p) } } ;`,
    description: 'Writes the upsert/delete streams of the change log to files.',
    example: "PUSH INTO DRIVE FORMAT CSV FILE 'out/orders_#now(yyyyMMdd).csv' ADD_HEADER DELIMITER ';';",
  },
  {
    keyword: 'PUSH INTO DB',
    heads: ['PUSH INTO? DB'],
    rule: 'pushDb',
    options: O.PUSH_DB,
    syntax: `PUSH INTO DB [CONN] { TABLE '…' } { AUTO_MERGE } { ON_UPSERT (<sql>) { TIMEOUT n } { BATCH n } }
    { ON_DELETE (<sql>) { TIMEOUT n } { BATCH n } } { ON_INIT (<sql>) } { ON_COMPLETION (<sql>) }
    { WITH { DISCARD_ON_SUCCESS } { DISCARD_ON_ERROR } { DLQ_ON_ERROR '…' } { RETRY <LINEAR|EXPONENTIAL> (n,p) } } ;`,
    description:
      'Plays the upsert and delete streams of the change log (or the dataset, as upserts) into a database, a transaction per ' +
      'batch: AUTO_MERGE merges them into TABLE by the key columns (creating it when missing); ON_UPSERT/ON_DELETE run your ' +
      'SQL per row with {{field}} as bind parameters (per batch over @pipelinedata()). ON_INIT runs first, ON_COMPLETION last ' +
      'with @success; @executionId everywhere.',
    example:
      "PUSH INTO DB [warehouse] TABLE 'orders' AUTO_MERGE ON_COMPLETION ( insert into runs values (@executionId, @success) );",
  },
  {
    keyword: 'SINK INTO DB',
    heads: ['SINK INTO? DB'],
    rule: 'sinkDb',
    options: O.SINK_DB,
    syntax: `SINK INTO DB [CONN] TABLE '<table>' { ON COLUMN '<xml column>' }
    { WITH { TRUNCATE | RECREATE | TRUNCATE_APPEND | RECREATE_APPEND } { REPLACE } { AUTO_CLEAN } } ;`,
    description:
      'Writes the whole dataset to a table in one transaction (SQLite: one prepared insert; PostgreSQL: COPY), creating the ' +
      "table from the dataset's column types when missing and adding the columns it lacks.",
    example: "SINK INTO DB [warehouse] TABLE 'customers' WITH TRUNCATE;",
  },
  {
    keyword: 'SINK INTO DRIVE',
    heads: ['SINK INTO? DRIVE'],
    rule: 'sinkDrive',
    options: O.SINK_DRIVE,
    syntax:
      "SINK INTO DRIVE { [CONN] } FORMAT <PARQUET|CSV|JSON|NDJSON|XML|RAW> FILE '<name>' { drive options } { WITH … } ;",
    description: 'Writes the whole dataset to a file.',
    example: "SINK INTO DRIVE FORMAT JSON FILE 'out/customers.json';",
  },
  {
    keyword: 'MERGE',
    heads: ['MERGE INTO?'],
    rule: 'merge',
    options: O.MERGE,
    syntax:
      "MERGE INTO [CONN] TABLE '…' { WITH { KEY COLUMNS '…' } { INSERTS } { UPDATES } { DELETES } { SCHEMA_DRIFT } } ;",
    description:
      "Merges the dataset into a table by key columns: INSERTS, UPDATES and DELETES (the table's rows the dataset lacks); " +
      'none named means all three. Without key columns it appends.',
    example: "MERGE INTO [warehouse] TABLE 'customers' WITH KEY COLUMNS 'id' INSERTS UPDATES SCHEMA_DRIFT;",
  },
  {
    keyword: 'PRINT',
    heads: ['PRINT'],
    rule: 'print',
    options: O.NO_OPTIONS,
    syntax: "PRINT '<text with functions>' ;",
    description: 'Shows a message; #f() functions in the text are evaluated.',
    example: "PRINT 'run started at #utcnow()';",
  },
  {
    keyword: 'EXIT',
    heads: ['EXIT'],
    rule: 'exit',
    options: O.EXIT,
    syntax: 'EXIT { KEEP n } ;',
    description: 'Stops the script. KEEP n keeps the first n rows of the dataset (0: the schema only).',
    example: 'EXIT KEEP 10;',
  },
];

// ------------------------------------------------------------------ head matching

interface HeadElement {
  type: TokenType;
  optional: boolean;
}

interface Head {
  command: CommandDef;
  elements: HeadElement[];
}

const HEADS: Head[] = COMMANDS.flatMap((command) =>
  command.heads.map((head) => ({
    command,
    elements: head.split(' ').map((w) => {
      const optional = w.endsWith('?');
      const word = optional ? w.slice(0, -1) : w;
      const type = word === '*' ? Star : KW[word as KeywordName];
      if (!type) throw new Error(`command head uses '${word}', which is not a keyword`);
      return { type, optional };
    }),
  })),
);

/** The first words of every command, for "unknown command" messages. */
export const COMMAND_WORDS = [...new Set(COMMANDS.map((c) => c.keyword.split(' ')[0]))];

export type HeadMatch =
  | { kind: 'match'; command: CommandDef; length: number }
  /**
   * `index` is the first token that does not fit (`tokens.length` when the tokens end inside a head,
   * so more text could complete it); `expected` lists what would fit there.
   */
  | { kind: 'mismatch'; index: number; expected: TokenType[] };

export function matchHead(tokens: IToken[]): HeadMatch {
  let best: { command: CommandDef; length: number } | undefined;
  let furthest = -1;
  let expected: TokenType[] = [];
  for (const head of HEADS) {
    let i = 0;
    let skipped: TokenType[] = [];
    let failed = false;
    for (const el of head.elements) {
      if (tokens[i]?.tokenType === el.type) {
        i++;
        skipped = [];
      } else if (el.optional) {
        skipped.push(el.type);
      } else {
        failed = true;
        if (i > furthest) [furthest, expected] = [i, []];
        if (i === furthest) expected.push(...skipped, el.type);
        break;
      }
    }
    if (!failed && (!best || i > best.length)) best = { command: head.command, length: i };
  }
  if (best) return { kind: 'match', ...best };
  return { kind: 'mismatch', index: furthest, expected: [...new Set(expected)] };
}
