import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { Session } from '../runtime/session';
import { best, collectGarbage, seededRandom } from './measure';

/**
 * `npm run bench -- xml`: SELECT * FROM DRIVE of a generated XML file of 100,000 records (about 10 MB:
 * an attribute, four child elements, an entity, indentation) through Session.run — the file read, the
 * shaping thread, the tree, the records and their typing — beside fast-xml-parser reading the same
 * file into objects (the reference), best of 3, same run. Goal: ≤ 3x the reference. Also the same
 * file with an XPath per record and RAWCOL (each record's XML written back), and, for the record,
 * xmldom's parser alone on the text (what read every XML document before saxes and xml-nodes.ts).
 */

const RECORDS = 100_000;
const RUNS = 3;
const GOAL = 3;

function generate(): string {
  const random = seededRandom(7);
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<orders>\n'];
  for (let i = 1; i <= RECORDS; i++) {
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    parts.push(
      `  <order id="${i}"><customer>Customer ${Math.floor(random() * 5000)} &amp; Co</customer>` +
        `<amount>${(random() * 1000).toFixed(2)}</amount><date>2024-03-${day}</date><status>open</status></order>\n`,
    );
  }
  parts.push('</orders>\n');
  return parts.join('');
}

const ms = (s: number) => `${(s * 1000).toFixed(0).padStart(6)} ms`;

export async function runXmlBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlcdc-bench-xml-'));
  const file = join(dir, 'orders.xml');
  writeFileSync(file, generate());
  const session = new Session({ cwd: dir, workspace: join(dir, 'workspace') });
  try {
    const mb = (statSync(file).size / 1048576).toFixed(1);
    console.log(`xml: ${RECORDS.toLocaleString('en-US')} records, ${mb} MB, best of ${RUNS}`);
    const reference = await best(
      RUNS,
      () =>
        new XMLParser({ ignoreAttributes: false }).parse(readFileSync(file, 'utf8')) as {
          orders: { order: unknown[] };
        },
      (doc) => {
        if (doc.orders.order.length !== RECORDS) throw new Error('fast-xml-parser read every record');
      },
      collectGarbage,
    );
    const rows = (statement: string, expected: number) =>
      best(
        RUNS,
        async () => {
          await session.run(statement);
          return session.dataset.rowCount;
        },
        (n) => {
          if (n !== expected) throw new Error(`${statement} gave ${n} rows, not ${expected}`);
        },
        collectGarbage,
      );
    const plain = await rows("SELECT * FROM DRIVE 'orders.xml';", RECORDS);
    const xpath = await rows(
      "SELECT * FROM DRIVE 'orders.xml' APPLY TX '//order[status = \"open\"]' WITH RAWCOL 'xml';",
      RECORDS,
    );
    const xmldom = await best(
      RUNS,
      async () => {
        const { DOMParser } = await import('@xmldom/xmldom');
        return new DOMParser().parseFromString(readFileSync(file, 'utf8'), 'text/xml');
      },
      (doc) => {
        if (!doc.documentElement) throw new Error('xmldom read the document');
      },
      collectGarbage,
    );
    const ratio = plain / reference;
    console.log(`  fast-xml-parser to objects        ${ms(reference)}   (the reference)`);
    console.log(
      `  SELECT * FROM DRIVE               ${ms(plain)}   ratio ${ratio.toFixed(2)}x (goal ≤ ${GOAL}x): ${ratio <= GOAL ? 'met' : 'MISSED'}`,
    );
    console.log(`  … APPLY TX XPath + RAWCOL         ${ms(xpath)}   ratio ${(xpath / reference).toFixed(2)}x`);
    console.log(`  xmldom's parser alone (before)    ${ms(xmldom)}   ratio ${(xmldom / reference).toFixed(2)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
