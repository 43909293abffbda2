/**
 * Read store in an embedded SQLite file. Each collection is a table holding the JSON document plus
 * one column per declared field, so filters, ranges and sorts use real indexes. A projection's writes
 * and its checkpoint commit in one transaction.
 */
import Database from 'better-sqlite3';
import type { CollectionDefinition, Condition, ProjectionCommit, Query, ReadCollection, ReadStore, Scalar, StoredDocument } from '../../application/ports/read-store';

type Row = { id: string; position: number; version: number; doc: string | null };

const identifier = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Invalid identifier ${name}`);
  return name;
};
const table = (collection: string) => `rm_${identifier(collection)}`;
const column = (field: string) => `f_${identifier(field)}`;
const toSql = (value: Scalar | undefined): string | number | null => (typeof value === 'boolean' ? (value ? 1 : 0) : (value ?? null));

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly definitions = new Map<string, CollectionDefinition>();
  private readonly writers = new Map<string, Database.Statement>();
  private readonly commitTransaction: (batch: ProjectionCommit) => void;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // The event store is the source of truth; a read model lost in a crash is rebuilt from it.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL)');
    const saveCheckpoint = this.db.prepare('INSERT OR REPLACE INTO checkpoints (projection, position) VALUES (?, ?)');
    this.commitTransaction = this.db.transaction((batch: ProjectionCommit) => {
      for (const { collection, document } of batch.writes) {
        const writer = this.writers.get(collection);
        const definition = this.definitions.get(collection);
        if (!writer || !definition) throw new Error(`Unknown collection ${collection}`);
        const doc = document.doc as Record<string, Scalar> | null;
        writer.run(document.id, document.position, document.version, doc ? JSON.stringify(doc) : null, ...Object.keys(definition.fields).map((f) => toSql(doc?.[f])));
      }
      saveCheckpoint.run(batch.projection, batch.checkpoint);
    });
  }

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    const name = table(definition.name);
    const fields = Object.keys(definition.fields);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${name} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, version INTEGER NOT NULL, doc TEXT)`);
    const existing = new Set(this.db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name}')`).all().map((c) => c.name));
    for (const field of fields) {
      if (existing.has(column(field))) continue;
      this.db.exec(`ALTER TABLE ${name} ADD COLUMN ${column(field)}`);
      this.db.prepare(`UPDATE ${name} SET ${column(field)} = json_extract(doc, ?)`).run(`$.${field}`);
    }
    for (const index of definition.indexes ?? []) {
      const cols = index.map(column);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ix_${name}_${index.map(identifier).join('_')} ON ${name} (${cols.join(', ')})`);
    }
    this.definitions.set(definition.name, definition);
    const placeholders = ['?', '?', '?', '?', ...fields.map(() => '?')].join(', ');
    this.writers.set(
      definition.name,
      this.db.prepare(`INSERT OR REPLACE INTO ${name} (id, position, version, doc${fields.map((f) => `, ${column(f)}`).join('')}) VALUES (${placeholders})`),
    );
    return new SqliteCollection<T>(this.db, definition);
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    this.commitTransaction(batch);
  }

  async checkpoint(projection: string): Promise<number> {
    return this.db.prepare<[string], { position: number }>('SELECT position FROM checkpoints WHERE projection = ?').get(projection)?.position ?? -1;
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      for (const name of collections) this.db.exec(`DELETE FROM ${table(name)}`);
      this.db.prepare('DELETE FROM checkpoints WHERE projection = ?').run(projection);
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

class SqliteCollection<T> implements ReadCollection<T> {
  private readonly name: string;
  private readonly getOne: Database.Statement<[string], { doc: string | null }>;
  private readonly getMany = new Map<number, Database.Statement<string[], Row>>();

  constructor(
    private readonly db: Database.Database,
    readonly definition: CollectionDefinition,
  ) {
    this.name = table(definition.name);
    this.getOne = db.prepare(`SELECT doc FROM ${this.name} WHERE id = ?`);
  }

  async get(id: string): Promise<T | null> {
    const row = this.getOne.get(id);
    return row?.doc ? (JSON.parse(row.doc) as T) : null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    const found = new Map<string, StoredDocument<T>>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      let statement = this.getMany.get(chunk.length);
      if (!statement) {
        statement = this.db.prepare<string[], Row>(`SELECT id, position, version, doc FROM ${this.name} WHERE id IN (${chunk.map(() => '?').join(',')})`);
        if (this.getMany.size < 64) this.getMany.set(chunk.length, statement);
      }
      const rows = statement.all(...chunk);
      for (const row of rows) found.set(row.id, { id: row.id, position: row.position, version: row.version, doc: row.doc ? (JSON.parse(row.doc) as T) : null });
    }
    return found;
  }

  async find(query: Query): Promise<T[]> {
    const { where, params } = this.where(query);
    let sql = `SELECT doc FROM ${this.name} ${where}`;
    if (query.sort) {
      const order = query.sort.order === 'asc' ? 'ASC' : 'DESC';
      sql += ` ORDER BY ${this.column(query.sort.field)} ${order}, id ${order}`;
    }
    sql += ' LIMIT ? OFFSET ?';
    params.push(query.limit ?? -1, query.offset ?? 0);
    return this.db
      .prepare<unknown[], { doc: string }>(sql)
      .all(...params)
      .map((r) => JSON.parse(r.doc) as T);
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    const { where, params } = this.where(query);
    return this.db.prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM ${this.name} ${where}`).get(...params)!.n;
  }

  private column(field: string): string {
    if (!(field in this.definition.fields)) throw new Error(`Field ${field} is not declared on ${this.definition.name}`);
    return column(field);
  }

  private where(query: Omit<Query, 'sort' | 'offset' | 'limit'>): { where: string; params: (string | number | null)[] } {
    const clauses = ['doc IS NOT NULL'];
    const params: (string | number | null)[] = [];
    for (const [field, condition] of Object.entries(query.where ?? {}) as [string, Condition][]) {
      const col = this.column(field);
      if (condition !== null && typeof condition === 'object') {
        if (condition.in.length === 0) clauses.push('0');
        else {
          const values = condition.in.filter((v) => v !== null);
          const parts: string[] = [];
          if (values.length > 0) parts.push(`${col} IN (${values.map(() => '?').join(',')})`);
          if (values.length < condition.in.length) parts.push(`${col} IS NULL`);
          clauses.push(`(${parts.join(' OR ')})`);
          params.push(...values.map(toSql));
        }
      } else if (condition === null) clauses.push(`${col} IS NULL`);
      else {
        clauses.push(`${col} = ?`);
        params.push(toSql(condition));
      }
    }
    if (query.search) {
      clauses.push(`${this.column(query.search.field)} LIKE ? ESCAPE '\\'`);
      params.push(`%${query.search.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (query.range) {
      const col = this.column(query.range.field);
      clauses.push(`${col} IS NOT NULL`);
      if (query.range.gte !== undefined && query.range.gte !== null) {
        clauses.push(`${col} >= ?`);
        params.push(toSql(query.range.gte));
      }
      if (query.range.lte !== undefined && query.range.lte !== null) {
        clauses.push(`${col} <= ?`);
        params.push(toSql(query.range.lte));
      }
    }
    return { where: `WHERE ${clauses.join(' AND ')}`, params };
  }
}
