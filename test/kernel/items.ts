import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The small CSV the Jupyter driver scripts load with `SELECT * FROM DRIVE 'items.csv'`. */
export function writeItems(dir: string): void {
  writeFileSync(join(dir, 'items.csv'), 'id,name,amount\n1,lamp,12.50\n2,fridge,499.99\n3,door,80\n');
}
