/**
 * The classification of errors that pass by themselves, against the errors the clients really throw:
 * KurrentDB's from gRPC statuses (through the client's own conversion), MongoDB's driver classes,
 * better-sqlite3's on a locked file, the SQLite writer threads', and Node's on a refused connection.
 */
import Database, { SqliteError } from 'better-sqlite3';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { connect } from 'node:net';
import { join } from 'node:path';
import { WrongExpectedRevisionError } from '../../../application/ports/event-store';
import { FencedOutError } from '../../../application/ports/leases';
import { DomainError } from '../../../domain/shared/errors';
import { isTransient } from '../../../infrastructure/shared/transient-errors';
import { storeError } from '../../../infrastructure/sqlite/store-error';
import { freePort } from '../../support/server-process';
import { tempDir } from '../../support/temp-dir';
import { kurrentError, status } from '../../support/kurrent-errors';

describe('transient errors', () => {
  it('KurrentDB: unavailable, not leader, deadline exceeded; not a conflict or a refusal', () => {
    expect(isTransient(kurrentError(status.UNAVAILABLE))).toBe(true);
    expect(isTransient(kurrentError(status.DEADLINE_EXCEEDED))).toBe(true);
    const notLeader = kurrentError(status.NOT_FOUND, {
      exception: 'not-leader',
      'leader-endpoint-host': '10.0.0.2',
      'leader-endpoint-port': '2113',
    });
    expect(notLeader.constructor.name).toBe('NotLeaderError');
    expect(isTransient(notLeader)).toBe(true);
    expect(isTransient(kurrentError(status.PERMISSION_DENIED, { exception: 'access-denied' }))).toBe(false);
    const deleted = kurrentError(status.FAILED_PRECONDITION, { exception: 'stream-deleted', 'stream-name': 'call-1' });
    expect(deleted.constructor.name).toBe('StreamDeletedError');
    expect(isTransient(deleted)).toBe(false);
  });

  it('MongoDB: network and selection errors and labelled or not-primary server errors; not a duplicate key', () => {
    expect(isTransient(new MongoNetworkError('connection 3 to 10.0.0.3:27017 closed'))).toBe(true);
    expect(
      isTransient(
        new MongoServerSelectionError('Server selection timed out', { type: 'ReplicaSetNoPrimary' } as never),
      ),
    ).toBe(true);
    expect(isTransient(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    expect(
      isTransient(
        new MongoServerError({ message: 'WriteConflict', code: 112, errorLabels: ['TransientTransactionError'] }),
      ),
    ).toBe(true);
    expect(isTransient(new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }))).toBe(false);
  });

  it('SQLite: a file locked past the busy timeout, in this thread or reported by a writer thread', () => {
    const dir = tempDir();
    const file = join(dir.path, 'busy.db');
    const holder = new Database(file);
    const other = new Database(file, { timeout: 0 });
    try {
      holder.exec('CREATE TABLE t (a)');
      holder.exec('BEGIN IMMEDIATE');
      let thrown: unknown;
      try {
        other.exec('BEGIN IMMEDIATE');
      } catch (error) {
        thrown = error;
      }
      // better-sqlite3's own error (compared by name: the native addon keeps the class of its first loading).
      expect(thrown).toMatchObject({ name: 'SqliteError', code: 'SQLITE_BUSY' });
      expect(isTransient(thrown)).toBe(true);
      expect(isTransient(storeError(String(thrown), (thrown as { code: string }).code))).toBe(true);
      expect(
        isTransient(new SqliteError('UNIQUE constraint failed: events.event_id', 'SQLITE_CONSTRAINT_UNIQUE')),
      ).toBe(false);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      other.close();
      dir.remove();
    }
  });

  it('Node: a refused connection, also as the cause of another error', async () => {
    const port = await freePort();
    const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').once('error', resolve));
    expect(isTransient(refused)).toBe(true);
    expect(isTransient(new Error('fetch failed', { cause: refused }))).toBe(true);
  });

  it('never: rules of the domain, revision conflicts, lost leases, bugs', () => {
    expect(isTransient(new DomainError('conflict', 'Chat already ended'))).toBe(false);
    expect(isTransient(new WrongExpectedRevisionError('s', 1, 2))).toBe(false);
    expect(isTransient(new FencedOutError('projections:calls'))).toBe(false);
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isTransient(null)).toBe(false);
  });
});
