import { tableCapacity } from '../../runtime/cdc/key-table';
import { writeState, type CdcState } from '../../runtime/cdc/state';

/**
 * `node write-state-child.js --write-state <file> <count>`: writes a state of `count` keys to
 * `file`, for state.test.ts to kill mid-write. (Run as a test file by `node --test`, it does nothing.)
 */
if (process.argv[2] === '--write-state') {
  const file = process.argv[3];
  const count = Number(process.argv[4]);
  const offsets = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i++) offsets[i] = 9 * i;
  const state: CdcState = {
    keys: [{ name: 'id', type: { base: 'int' } }],
    observed: [{ name: 'v', type: { base: 'string' } }],
    entries: { bytes: new Uint8Array(9 * count).fill(1), offsets },
    hashes: new Int32Array(2 * count).fill(7),
    table: new Int32Array(2 * tableCapacity(count)),
    format: 2,
  };
  process.stdout.write('writing\n');
  void writeState(file, state).then(() => process.stdout.write('written\n'));
}
