import { Session } from '../../runtime/session';

/**
 * `node capture-child.js --capture <cwd> <workspace>`: a pipeline `big` reading big.csv and capturing it
 * into logs/, in a process kill.test.ts kills. It says `selected` once the source is read and `captured`
 * once CAPTURE returned, then waits for its stdin to close, so that it is still alive whenever it is
 * killed. (Run as a test file by `node --test`, it does nothing.)
 */
if (process.argv[2] === '--capture') {
  const [cwd, workspace] = process.argv.slice(3);
  const session = new Session({ cwd, workspace, pipeline: 'big' });
  void (async () => {
    await session.run(`SELECT * FROM DRIVE 'big.csv';`);
    process.stdout.write('selected\n');
    await session.run(`CAPTURE 'big' INSERTS UPDATES DELETES ON KEYS 'id' WITH PATH 'logs';`);
    process.stdout.write('captured\n');
    await session.close();
    process.stdin.resume().on('end', () => process.exit(0));
  })();
}
