/**
 * A process of tests/integration/sqlite/open-together.test.ts: waits for the moment it is given, then opens
 * and closes `count` new databases of one kind in the directory it is given (the same files as the other
 * processes, at the same time), and prints one line: `opened N` or `failed N: <first error>`.
 *
 *   node --import tsx tests/support/open-sqlite-files.ts DIR events|read|keys COUNT AT_MS
 */
import { join } from 'node:path';
import { openEventsDatabase } from '../../infrastructure/sqlite/sqlite-events-schema';
import { openKeysDatabase } from '../../infrastructure/sqlite/sqlite-key-rows';
import { openReadDatabase } from '../../infrastructure/sqlite/sqlite-read-schema';

const [dir, kind, count, at] = process.argv.slice(2) as [string, 'events' | 'read' | 'keys', string, string];
const open = {
  events: openEventsDatabase,
  read: openReadDatabase,
  keys: (file: string) => openKeysDatabase(file, 5_000),
}[kind];

// Every process starts at the same moment, so that their opens meet.
while (Date.now() < Number(at));
let failed = 0;
let first = '';
for (let i = 0; i < Number(count); i++) {
  try {
    open(join(dir, `${kind}-${i}.db`)).close();
  } catch (error) {
    failed += 1;
    first ||= String(error);
  }
}
console.log(failed === 0 ? `opened ${count}` : `failed ${failed}: ${first}`);
