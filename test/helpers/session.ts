import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Session } from '../../runtime/session';
import { tempDir } from './temp';

export { tempDir } from './temp';

/**
 * A session whose working directory is a new temp folder holding `files` (relative path → content,
 * folders made as needed), with its workspace in the `ws` folder there.
 */
export function tempSession(
  files: Record<string, string | Buffer> = {},
  area = 'session',
): { session: Session; dir: string } {
  const dir = tempDir(area);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { session: new Session({ workspace: join(dir, 'ws'), cwd: dir }), dir };
}
