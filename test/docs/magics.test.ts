import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import type { Result } from '../../runtime/index';
import type { Magic } from '../../runtime/magics/magic';
import type { Dataset } from '../../runtime/dataset/dataset';
import { connectInfoMagic } from '../../kernel/connect-info';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';
import { DOCS } from './harness';
import { codeSpans, optionsIn, tableOf } from './tables';

/**
 * The magics tables of docs/session.md and docs/jupyter.md are written by hand; this holds them
 * against the session's own table of magics (what %help lists, each magic's subcommands, options and
 * secretArgs) both ways, so a new magic, subcommand or option fails here until it is documented, and
 * a row cannot name one that does not exist. Then each form of session.md's table runs once through
 * Session.execute, and its output is what the row says.
 */
const page = (name: string) => readFileSync(resolve(DOCS, name), 'utf8');
const sessionMd = page('session.md');
const { session, dir } = tempSession(
  {
    'orders.csv': 'id,region,amount\n1,East,10\n2,West,20\n3,East,5\n',
    'data/orders.csv': 'id,region,amount\n7,North,70\n',
    'reader.sql': "SELECT * FROM DRIVE 'orders.csv';\nCAPTURE 'orders' ON KEYS 'id';\n",
    'writer.sql': "LOAD UPSERTS FROM 'orders';\nPRINT 'loaded #data.count()';\n",
  },
  'docs-magics',
);
let api: TestServer;
/** The listener %webhook start started. */
let webhookUrl = '';
before(async () => {
  api = await startHttpServer((req, res) => sendJson(res, { orders: [{ id: 1 }] }));
});
after(async () => {
  await session.close();
  await api.close();
});

/** One form of a magic as a table row writes it: `%job` and `run NAME` → magic job, text `run NAME`. */
interface Form {
  magic: string;
  /** A cell magic's first line (`%%job …`). */
  cell: boolean;
  /** The form after `%name`. */
  text: string;
  /** The row's description. */
  row: string[];
}

/** The forms of a table's rows: each code span of the first cell; one without `%` continues the row's magic. */
function formsOf(rows: string[][]): Form[] {
  return rows.flatMap((row) => {
    let magic = '';
    let cell = false;
    return codeSpans(row[0]).map((span) => {
      const m = /^(%%?)(\w+)\s*(.*)$/s.exec(span);
      if (m) [magic, cell] = [m[2], m[1] === '%%'];
      return { magic, cell, text: (m ? m[3] : span).trim(), row };
    });
  });
}

/**
 * The subcommand a form starts with (`[list]` → list), when the magic has subcommands; `''` when it has
 * none, or its words are the values of its first argument (`%plot <kind> …`: bar, line…).
 */
function subOf(magic: Magic, text: string): string {
  const first = text.split(/\s/)[0];
  return magic.words && !first.startsWith('<') ? first.replace(/^\[(.*)\]$/, '$1') : '';
}

/** Whether the magic's words are the values of a `<placeholder>` of its usage, not subcommands. */
const wordsAreValues = (magic: Magic) => /^%\w+ </.test(magic.usage);

/** A usage's forms: split at ` | ` outside brackets and braces, each without its `%name`. */
function usageForms(usage: string): string[] {
  const forms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < usage.length; i++) {
    if ('[{('.includes(usage[i])) depth++;
    else if (']})'.includes(usage[i])) depth--;
    else if (depth === 0 && usage.startsWith(' | ', i)) {
      forms.push(usage.slice(start, i));
      start = i + 3;
    }
  }
  forms.push(usage.slice(start));
  return forms.map((f) => f.trim().replace(/^%\w+\s*/, ''));
}

async function run(cell: string): Promise<Result[]> {
  const out: Result[] = [];
  for await (const r of session.execute(cell) as AsyncIterable<Result>) out.push(r);
  return out;
}

/** What a cell said (messages), failing on its error. */
async function said(cell: string): Promise<string> {
  const out = await run(cell);
  const error = out.find((r) => r.kind === 'error');
  assert.equal(error?.kind === 'error' ? error.error.message : undefined, undefined, cell);
  return out.flatMap((r) => (r.kind === 'message' ? [r.text] : [])).join('\n');
}

/** The tables a cell showed: title and rows (cells as text). */
async function tables(cell: string): Promise<{ title?: string; rows: string[][] }[]> {
  const out = await run(cell);
  assert.deepEqual(
    out.filter((r) => r.kind === 'error'),
    [],
    cell,
  );
  return out.flatMap((r) => (r.kind === 'table' ? [{ title: r.title, rows: rowsOf(r.dataset) }] : []));
}

function rowsOf(d: Dataset): string[][] {
  const columns = d.columns.map((_, c) => d.column(c).map((v) => (v === null ? '' : String(v))));
  return Array.from({ length: d.rowCount }, (_, i) => columns.map((c) => c[i]));
}

/** The error a cell ends with: its message and the (masked) line shown under it. */
async function failure(cell: string): Promise<{ message: string; source: string }> {
  const error = (await run(cell)).find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', `${cell} fails`);
  return { message: error.error.message, source: error.source };
}

const magicsRows = tableOf(sessionMd, ['magic', 'what it does']);
const forms = formsOf(magicsRows);
const magicNamed = (name: string): Magic => {
  const m = session.magics.find(name);
  assert.ok(m, `%${name} is a magic of the session`);
  return m;
};

test("session.md's table of magics shows each magic %help lists, with its usage's forms, and no other", async () => {
  const [help] = await tables('%help');
  const usages = help.rows.map(([usage]) => usage);
  const names = usages.map((u) => /^%(\w+)/.exec(u)![1]);
  assert.deepEqual([...new Set(forms.filter((f) => !f.cell).map((f) => f.magic))].sort(), names.sort());
  for (const usage of usages) {
    const magic = magicNamed(/^%(\w+)/.exec(usage)![1]);
    const documented = forms.filter((f) => f.magic === magic.name && !f.cell);
    const shown = documented.map((f) => f.text);
    for (const form of usageForms(usage)) {
      // A usage that only names the subcommands (`add|list|remove …`): the table writes each out.
      const summary = /^([\w|-]+) …$/.exec(form);
      if (summary)
        for (const sub of summary[1].split('|'))
          assert.ok(
            documented.some((f) => subOf(magic, f.text) === sub),
            `%${magic.name} ${sub} has a row in session.md`,
          );
      else
        assert.ok(
          shown.includes(form),
          `session.md shows %${magic.name} ${form} as %help does (it shows ${shown.join(' / ')})`,
        );
    }
    if (!usageForms(usage).some((f) => f.endsWith(' …')))
      assert.deepEqual(shown.sort(), usageForms(usage).sort(), `session.md's forms of %${magic.name} are its usage's`);
  }
  const cellMagics = session.magics
    .all()
    .filter((m) => m.cell !== undefined)
    .map((m) => m.name);
  assert.deepEqual(
    forms.filter((f) => f.cell).map((f) => f.magic),
    cellMagics,
  );
});

test('each subcommand and option a magic parses is in its rows, and each one the rows name exists', () => {
  for (const magic of session.magics.all()) {
    const lines = forms.filter((f) => f.magic === magic.name && !f.cell);
    const subs = new Set(lines.map((f) => subOf(magic, f.text)));
    if (magic.words && wordsAreValues(magic))
      for (const word of magic.words)
        assert.ok(sessionMd.includes(`\`${word}\``), `session.md names %${magic.name}'s ${word}`);
    else if (magic.words) assert.deepEqual([...subs].sort(), [...magic.words].sort(), `%${magic.name}'s subcommands`);
    for (const sub of subs) {
      const known = Object.keys(magic.options?.[sub] ?? {});
      const ofSub = lines.filter((f) => subOf(magic, f.text) === sub);
      for (const f of ofSub)
        for (const o of optionsIn(f.text)) assert.ok(known.includes(o), `%${magic.name} ${sub} has --${o}`);
      // The rows' descriptions say more of the options (connection's HTTP options), and no other.
      const named = new Set([...ofSub.flatMap((f) => optionsIn(f.text)), ...ofSub.flatMap((f) => optionsIn(f.row[1]))]);
      for (const o of named)
        assert.ok(known.includes(o), `%${magic.name} ${sub} has --${o} (its row's description names it)`);
      for (const o of known) assert.ok(named.has(o), `session.md names --${o} of %${magic.name} ${sub}`);
    }
    const cell = forms.find((f) => f.magic === magic.name && f.cell);
    assert.equal(cell !== undefined, magic.cell !== undefined, `%%${magic.name} has a row iff it is a cell magic`);
    if (!cell || !magic.cellArgs) continue;
    assert.deepEqual(
      optionsIn(cell.text).sort(),
      Object.keys(magic.cellArgs.options).sort(),
      `%%${magic.name}'s options`,
    );
    const positional = cell.text.split(/\s+/).filter((w) => !w.startsWith('[') && !w.startsWith('('));
    magic.cellArgs.positional.forEach((words, i) => {
      if (words) assert.equal(positional[i], words.join('|'), `%%${magic.name}'s word ${i + 1}`);
    });
  }
});

/** The table of masked arguments: a row per magic (and subcommand) with secretArgs. */
const maskedRows = tableOf(sessionMd, ['magic', 'masked']).filter((row) => codeSpans(row[0]).length > 0);

test("the table of masked arguments is each magic's secretArgs", () => {
  const rows = maskedRows.flatMap((row) =>
    codeSpans(row[0]).map((span) => {
      const [, name, sub] = /^%%?(\w+)(?: (\w+))?$/.exec(span)!;
      return { magic: magicNamed(name), sub, masked: row[1] };
    }),
  );
  const declaring = session.magics.all().filter((m) => m.secretArgs);
  assert.deepEqual([...new Set(rows.map((r) => r.magic.name))].sort(), declaring.map((m) => m.name).sort());
  for (const magic of declaring) {
    const own = rows.filter((r) => r.magic === magic);
    const options = new Set(own.flatMap((r) => optionsIn(r.masked)));
    assert.deepEqual(
      [...options].sort(),
      [...(magic.secretArgs!.options ?? [])].sort(),
      `%${magic.name}'s masked options`,
    );
    const positional = Object.keys(magic.secretArgs!.positionalFrom ?? {});
    assert.deepEqual(
      own.flatMap((r) => (r.sub ? [r.sub] : [])).sort(),
      positional.sort(),
      `%${magic.name}'s masked words`,
    );
  }
  // "Other magics (`%webhook`, …) take no secret": those named there declare none.
  const others = /Other magics \(([^)]*)\)/.exec(sessionMd)![1];
  for (const span of codeSpans(others)) assert.equal(magicNamed(span.slice(1)).secretArgs, undefined, span);
});

/** The line an error shows, with each of `secrets` (written once in `line`) masked keeping its width. */
function masked(line: string, ...secrets: string[]): string {
  return secrets.reduce((l, s) => l.replace(` ${s}`, ` ${'*'.repeat(s.length)}`), line);
}

const MASKING: Record<string, { line: string; secrets: string[] }> = {
  '%connection add': {
    line: '%connection add shop https://u:pw@h/x more --basic u:p --bearer tok --apikey K:v --header X:y --postgres pg --nosuch zz',
    secrets: ['https://u:pw@h/x', 'more', 'u:p', 'tok', 'K:v', 'X:y', 'pg', 'zz'],
  },
  '%var set': { line: '%var set --encrypted token two words --bogus x', secrets: ['two', 'words', 'x'] },
  '%job': { line: '%job update nightly --signing-secret whsec_abc --bogus', secrets: ['whsec_abc'] },
  '%%job': { line: '%%job nightly writer --signing-secret whsec_abc', secrets: ['whsec_abc'] },
};

for (const row of maskedRows)
  for (const span of codeSpans(row[0]))
    test(`an error of ${span} shows its line with what the row says masked`, async () => {
      const example = MASKING[span];
      assert.ok(example, `an example of ${span} is in MASKING`);
      const { source } = await failure(`${example.line}\nPRINT 'after';`);
      assert.equal(source.split('\n')[0], masked(example.line, ...example.secrets));
    });

test('after a subcommand a magic does not know, every word is masked (the last row)', async () => {
  assert.match(sessionMd, /after a subcommand it does not know, every word/);
  assert.equal((await failure('%var frob a b')).source, '%var frob * *');
});

test("jupyter.md's table names the kernel's magics, and their subcommands and usage as %help shows them", () => {
  const kernel = [...session.magics.all(), connectInfoMagic('kernel-1.json')];
  const rows = formsOf(tableOf(page('jupyter.md'), ['magic', 'what it does']));
  assert.deepEqual(
    [...new Set(rows.filter((f) => !f.cell).map((f) => f.magic))].sort(),
    kernel.map((m) => m.name).sort(),
  );
  for (const f of rows) {
    const magic = kernel.find((m) => m.name === f.magic)!;
    if (f.cell) {
      assert.ok(magic.cell !== undefined, `%%${f.magic} is a cell magic`);
      continue;
    }
    if (!magic.words || wordsAreValues(magic)) {
      assert.equal(
        `%${f.magic}${f.text ? ` ${f.text}` : ''}`,
        magic.usage,
        `jupyter.md shows %${f.magic} as %help does`,
      );
      continue;
    }
    // `%connection add / list / remove`: the subcommands, all of them; `%var …`: none named.
    const subs = f.text === '…' ? [] : f.text.split(' / ');
    if (subs.length) assert.deepEqual(subs, [...magic.words], `jupyter.md names %${f.magic}'s subcommands`);
  }
});

/**
 * Each form of session.md's table, run: the key is the start of the one form it runs (`%job create`),
 * the check is what the row says it does.
 */
const RUNS: [string, () => Promise<void>][] = [
  [
    '%help',
    async () => {
      const [help] = await tables('%help');
      assert.equal(help.title, 'Magics');
      assert.deepEqual(
        help.rows.map(([usage]) => usage),
        session.magics.all().map((m) => m.usage),
      );
    },
  ],
  [
    '%workspace',
    async () => assert.equal(await said('%workspace'), `workspace: ${join(dir, 'ws')}\nworking directory: ${dir}`),
  ],
  [
    '%limit [N]',
    async () => {
      assert.equal(await said('%limit'), 'display limit: 20 rows');
      assert.equal(await said('%limit 2'), 'display limit: 2 rows');
      const shown = (await run("SELECT * FROM DRIVE 'orders.csv';")).find((r) => r.kind === 'table');
      assert.equal(shown?.kind === 'table' && shown.limit, 2);
    },
  ],
  [
    '%describe [column …]',
    async () => {
      const [all] = await tables('%describe');
      assert.deepEqual(
        all.rows.map((r) => r[0]),
        ['id', 'region', 'amount'],
      );
      const [region] = await tables('%describe region');
      assert.equal(region.title, 'Profile of the pipeline dataset (3 rows, 3 columns)');
      assert.deepEqual(region.rows, [['region', 'string', '0', '2', 'East', 'West', 'East (2), West (1)']]);
    },
  ],
  [
    '%plot <kind>',
    async () => {
      const chart = (await run('%plot bar x=region')).find((r) => r.kind === 'display');
      assert.ok(chart?.kind === 'display');
      assert.equal(chart.text, 'bar chart of row count by region, 3 rows');
      assert.ok('application/vnd.vegalite.v5+json' in chart.data);
    },
  ],
  [
    '%reset',
    async () => {
      assert.equal(await said('%reset'), 'pipeline reset: empty dataset');
      assert.equal(await said("PRINT '#data.count() rows';"), '0 rows');
    },
  ],
  [
    '%pipeline [NAME]',
    async () => {
      assert.equal(await said('%pipeline'), 'pipeline: repl');
      assert.equal(await said('%pipeline nightly'), 'pipeline: nightly');
    },
  ],
  [
    '%var [list]',
    async () => {
      assert.equal(await said('%var'), 'no variables (add one with %var set <name> <value>)');
      await said('%var set region East');
      await said('%var set --encrypted token s3cret');
      const [list] = await tables('%var list');
      assert.deepEqual(list.rows, [
        ['region', 'no', 'East'],
        ['token', 'yes', '****'],
      ]);
      assert.equal(await said(`PRINT '#trygetvar(region) #trygetvar(token)';`), 'East s3cret');
    },
  ],
  ['%var set', async () => assert.equal(await said("%var set note 'two words'"), 'variable note set')],
  [
    '%var remove',
    async () => {
      assert.equal(await said('%var remove note'), 'variable note removed');
      assert.equal((await failure('%var remove note')).message, "no variable 'note'");
    },
  ],
  [
    '%connection add <name> <url>',
    async () => {
      const add = `%connection add shop ${api.url}/api --header "X-Tenant: acme" --apikey "X-Api-Key: k1" --timeout 5 --max-answer 1gb --insecure --ca ca.pem`;
      assert.equal(await said(add), 'connection [shop] added (http)');
      assert.equal(await said(add.replace('--ca ca.pem', '')), 'connection [shop] replaced (http)');
      assert.equal(await said(add.replace('--ca ca.pem', '')), 'connection [shop] unchanged (http)');
      await said("SELECT * FROM HTTP [shop] (GET /orders) APPLY TX '$.orders';");
      assert.equal(api.requests[0].headers['x-tenant'], 'acme');
      assert.equal(api.requests[0].headers['x-api-key'], 'k1');
    },
  ],
  [
    '%connection add <name> --drive',
    async () => {
      assert.equal(await said('%connection add lake --drive data'), 'connection [lake] added (drive)');
      assert.equal(await said("SELECT * FROM DRIVE [lake] 'orders.csv'; PRINT '#data.count()';"), '1');
      assert.match((await failure("SELECT * FROM DRIVE [lake] '../orders.csv';")).message, /outside|leaves/);
    },
  ],
  [
    '%connection list',
    async () => {
      const [list] = await tables('%connection list');
      const shop = list.rows.find((r) => r[0] === 'shop')!;
      assert.equal(shop[1], 'http');
      assert.match(shop[2], /"X-Tenant":"\*\*\*\*"/);
      assert.match(shop[2], /"key":"\*\*\*\*"/);
      assert.doesNotMatch(shop[2], /acme|k1/);
    },
  ],
  [
    '%connection remove',
    async () => {
      assert.equal(await said('%connection remove lake'), 'connection [lake] removed');
      const [list] = await tables('%connection list');
      assert.deepEqual(
        list.rows.map((r) => r[0]),
        ['shop'],
      );
    },
  ],
  [
    '%job create',
    async () => {
      assert.match(
        await said('%job create nightly --reader reader.sql --writer writer.sql --save-sample'),
        /^job nightly: reader [0-9a-f]{32}, writer [0-9a-f]{32}$/,
      );
    },
  ],
  [
    '%job run NAME',
    async () => {
      const out = await said('%job run nightly');
      assert.match(out, /: 3 inserts, 0 updates, 0 deletes\n/);
      assert.match(out, /\nloaded 3\njob nightly: success, 3 rows \(run \d+\)$/);
    },
  ],
  [
    '%job list',
    async () => {
      const [jobs] = await tables('%job list');
      assert.deepEqual(
        jobs.rows.map((r) => [r[0], r[1]]),
        [['nightly', 'direct']],
      );
    },
  ],
  [
    '%changelog list',
    async () => {
      const [logs] = await tables('%changelog list');
      assert.equal(logs.title, `change logs in ${join(dir, 'ws', 'changelogs', 'nightly')}`);
      assert.match(logs.rows[0][0], /^orders_\d+\.eds$/);
      assert.deepEqual(logs.rows[0].slice(2, 6), ['nightly', '3', '0', '0']);
    },
  ],
  [
    '%changelog show',
    async () => {
      const out = await run('%changelog show orders');
      const header = out.find((r) => r.kind === 'message');
      assert.match(header?.kind === 'message' ? header.text : '', /\nsecurity +not encrypted, not signed\n/);
      assert.deepEqual(
        out.flatMap((r) => (r.kind === 'table' ? [r.title] : [])),
        // The first rows of each stream: %limit's (2, set above).
        ['upserts: 3 rows (the first 2)', 'deletes: 0 rows'],
      );
      assert.match(
        (await failure('%changelog show orders --check-signature')).message,
        /the change log is not signed$/,
      );
    },
  ],
  [
    '%job update NAME',
    async () => {
      const out = await said('%job update nightly --webhook --signing-secret new');
      assert.match(
        out,
        /^job nightly: webhook enabled, save sample yes, signing secret set\nsigning secret whsec_\S+ \(shown once\)$/,
      );
      assert.match((await failure('%job update nightly --signing-secret -')).message, /a notebook has no stdin/);
    },
  ],
  [
    '%job trigger NAME',
    async () => {
      assert.match(await said('%job create report --writer writer.sql'), /^job report \(writer\): [0-9a-f]{32}$/);
      assert.equal(await said('%job trigger nightly --on success --run report'), 'job nightly: on success, run report');
    },
  ],
  [
    '%%job',
    async () => {
      const cell = "%%job report writer --webhook\nLOAD UPSERTS FROM 'orders';\nPRINT 'report #data.count()';";
      assert.equal(await said(cell), 'job report: writer saved (writer)');
      // The trigger runs the saved writer after nightly's run.
      assert.match(await said('%job run nightly'), /\nreport 3\n/);
    },
  ],
  [
    '%webhook start',
    async () => {
      const started = await said('%webhook start --port 0 --no-auth');
      webhookUrl = /^webhook listening: (\S+) \(@webhookurl\)$/.exec(started)?.[1] ?? '';
      assert.ok(webhookUrl, started);
    },
  ],
  [
    '%webhook wait',
    async () => {
      // As test/webhook/session.test.ts: the wait is under way when the call comes.
      const waiting = said('%webhook wait --timeout 60');
      const body = '[{"id": 1}, {"id": 2}]';
      const answer = await fetch(webhookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      // Without --job a call is answered 202 {call, rows} (webhook.md, "In a notebook").
      assert.equal(answer.status, 202);
      assert.deepEqual(await answer.json(), { call: 1, rows: 2 });
      assert.equal(await waiting, 'webhook call 1 arrived: 2 rows (%webhook take 1)');
    },
  ],
  [
    '%webhook take',
    async () => {
      const [taken] = await tables('%webhook take 1');
      assert.equal(taken.title, 'webhook call 1 is the pipeline dataset');
      assert.deepEqual(taken.rows, [['1'], ['2']]);
    },
  ],
  [
    '%webhook status',
    async () => {
      const status = await said('%webhook status');
      assert.ok(status.startsWith(`url: ${webhookUrl}\ncalls received: 1\nlast call: `), status);
    },
  ],
  [
    '%webhook log',
    async () => {
      const [log] = await tables('%webhook log');
      assert.deepEqual([log.rows[0][0], log.rows[0][2], log.rows[0][3]], ['1', 'POST', '2']);
    },
  ],
  [
    '%webhook stop',
    async () => {
      assert.equal(await said('%webhook stop'), 'webhook listener stopped after 1 call');
      // Started again to serve a job: each call then runs through its writer.
      assert.match(await said('%webhook start --job report'), /\neach call runs through job report's writer$/);
      assert.equal(await said('%webhook stop'), 'webhook listener stopped after 0 calls');
    },
  ],
];

test("every form of session.md's table is run below", () => {
  const written = forms.map((f) => `${f.cell ? '%%' : '%'}${f.magic} ${f.text}`.trim());
  for (const form of written)
    assert.equal(RUNS.filter(([key]) => form.startsWith(key)).length, 1, `one run of ${form}`);
  for (const [key] of RUNS)
    assert.equal(written.filter((form) => form.startsWith(key)).length, 1, `${key} runs one form`);
});

for (const [form, check] of RUNS) test(`session.md: ${form} does what its row says`, check);
