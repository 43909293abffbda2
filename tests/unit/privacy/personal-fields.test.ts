/**
 * Every event type of domain/ whose data has a field named like personal data (a name, a number, a
 * message, a transcript, a summary, a body, a record) either seals that field (PERSONAL_FIELDS) or
 * says why it is not personal (a rule's `clear`, or CLEAR_EVENT_TYPES). The event types and their
 * fields are read from the sources by the TypeScript checker, so a new event type, or a new field of
 * an old one, is checked without anyone listing it here.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sealFields, unsealFields } from '../../../application/privacy/field-sealing';
import { deliveryError } from '../../../domain/chats/delivery-errors';
import { ERASED } from '../../../domain/privacy/erased';
import {
  CLEAR_EVENT_TYPES,
  DELIVERY_ERROR_DETAILS,
  pathsOf,
  PERSONAL_FIELDS,
  sealedTopLevel,
} from '../../../domain/privacy/personal-fields';

const DOMAIN = join(__dirname, '..', '..', '..', 'domain');
/** Field names that may hold personal data; ids and hashes (`messageId`, `bodyHash`) do not. */
const PERSONAL_LOOKING =
  /name|phone|number|^to$|^from$|content|transcript|summary|body|message|text|record|changes|extracted|entries/i;
const NAMES_AN_ID = /(Id|Ids|Hash)$/;

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/** Each event type of domain/ with the fields of its data: every exported `…Event` type that is a union of `{ type, data }`. */
function domainEventFields(): Map<string, Set<string>> {
  const program = ts.createProgram(sources(DOMAIN), { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022 });
  const checker = program.getTypeChecker();
  const events = new Map<string, Set<string>>();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(DOMAIN)) continue;
    ts.forEachChild(file, (node) => {
      if (!ts.isTypeAliasDeclaration(node) || !/Event$/.test(node.name.text)) return;
      const type = checker.getTypeAtLocation(node.name);
      for (const member of type.isUnion() ? type.types : [type]) {
        const typeProp = member.getProperty('type');
        const dataProp = member.getProperty('data');
        if (!typeProp || !dataProp) continue;
        const literal = checker.getTypeOfSymbolAtLocation(typeProp, node);
        if (!literal.isStringLiteral()) continue;
        const data = checker.getTypeOfSymbolAtLocation(dataProp, node);
        const fields = events.get(literal.value) ?? new Set<string>();
        for (const field of checker.getPropertiesOfType(data)) fields.add(field.name);
        events.set(literal.value, fields);
      }
    });
  }
  return events;
}

describe('personal fields of events', () => {
  const events = domainEventFields();

  it('reads the event types of domain/ and their fields', () => {
    expect(events.get('CallQueued')).toEqual(expect.objectContaining(new Set(['customerName', 'to', 'callId'])));
    expect(events.get('CustomerAdded')?.has('record')).toBe(true);
    expect(events.size).toBeGreaterThan(60);
  });

  it('seals, or gives a reason to keep, every field named like personal data', () => {
    const unexplained: string[] = [];
    for (const [type, fields] of events) {
      if (CLEAR_EVENT_TYPES[type]) continue;
      const rule = PERSONAL_FIELDS[type];
      const sealed = rule ? sealedTopLevel(rule) : new Set<string>();
      for (const field of fields)
        if (PERSONAL_LOOKING.test(field) && !NAMES_AN_ID.test(field) && !sealed.has(field) && !rule?.clear?.[field])
          unexplained.push(`${type}.${field}`);
    }
    expect(unexplained).toEqual([]);
  });

  it('lists only event types and fields that exist', () => {
    for (const [type, rule] of Object.entries(PERSONAL_FIELDS)) {
      const fields = events.get(type);
      expect({ type, exists: fields !== undefined }).toEqual({ type, exists: true });
      for (const field of [...sealedTopLevel(rule), ...Object.keys(rule.clear ?? {})])
        expect({ type, field, exists: fields!.has(field) }).toEqual({ type, field, exists: true });
    }
    for (const type of Object.keys(CLEAR_EVENT_TYPES))
      expect({ type, exists: events.has(type) }).toEqual({ type, exists: true });
  });

  it("seals a record's personal fields, not its clear ones nor the fields a change removes", () => {
    const group = PERSONAL_FIELDS.CustomerUpdated!.groups[0]!;
    const changes = { first_name: 'Asha', payment_status: 'paid', 'notes.v2': 'x', branch: null };
    expect(pathsOf(group, { changes })).toEqual(['changes.first_name', 'changes.notes.v2']);
  });

  describe("a failed chat's delivery errors", () => {
    const KEY = Buffer.alloc(32, 3);
    const [group] = PERSONAL_FIELDS.ChatFailed!.groups;
    const failed = {
      messageId: 'm1',
      at: '2026-03-01T10:00:00.000Z',
      errors: [
        deliveryError('not_on_platform', 'No chat account is registered for +919876501234.'),
        { code: 131026, title: 'Message undeliverable', message: 'Undeliverable', href: 'https://x' },
      ],
    };
    const sealed = () => sealFields('ChatFailed', failed, [{ keyId: 's1', key: KEY, fields: pathsOf(group!, failed) }]);

    it('seal the details of each error with the subject key, and keep the rest of each error readable', () => {
      expect(group!.key).toBe('subject');
      expect(pathsOf(group!, failed)).toEqual([DELIVERY_ERROR_DETAILS]);
      expect(pathsOf(group!, { ...failed, errors: [] })).toEqual([]);
      const stored = sealed();
      expect(JSON.stringify(stored)).not.toContain('9876501234');
      expect(stored.errors).toEqual([
        { ...failed.errors[0], error_data: {} },
        { code: 131026, title: 'Message undeliverable', message: 'Undeliverable', href: 'https://x' },
      ]);
      expect(failed.errors[0]!).toHaveProperty('error_data.details');
    });

    it('read back as they were with the key, and with only their details erased without it', () => {
      expect(unsealFields('ChatFailed', sealed(), () => KEY)).toEqual({ data: failed, erased: [] });
      const erased = unsealFields('ChatFailed', sealed(), () => null);
      expect(erased.erased).toEqual([DELIVERY_ERROR_DETAILS]);
      expect(erased.data.errors).toEqual([
        { ...failed.errors[0], error_data: { details: ERASED } },
        { ...failed.errors[1], error_data: { details: ERASED } },
      ]);
    });
  });
});
