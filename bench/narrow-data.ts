import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { seededRandom } from './measure';

/**
 * The narrow file of issue 14's memory goal: `id,name,amount,ts` (int, a name from 50,000, an amount
 * with two decimals, an ISO datetime), about 44 bytes a row, generated once into bench/.data/.
 */
export const NARROW_SCHEMA = 'APPLY SCHEMA (\n  int id\n  string name\n  decimal(10, 2) amount\n  datetime ts\n);';

export async function narrowFile(path: string, rows: number): Promise<string> {
  if (existsSync(path)) return path;
  process.stdout.write(`generating ${path} … `);
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const next = seededRandom(14);
  const start = Date.UTC(2024, 0, 1);
  let chunk = 'id,name,amount,ts\n';
  for (let i = 1; i <= rows; i++) {
    const ts = new Date(start + Math.floor(next() * 3e10)).toISOString().slice(0, 19);
    chunk += `${i},name ${Math.floor(next() * 50000)},${(next() * 1000).toFixed(2)},${ts}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  await new Promise<void>((done) => out.end(chunk, () => done()));
  renameSync(partial, path);
  console.log('done');
  return path;
}
