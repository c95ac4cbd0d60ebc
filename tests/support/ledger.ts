import crypto from 'node:crypto';
import { inject } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { freshDatabase } from './database';

/** A user of our own (unique e-mail) so assertions stay scoped in the shared test database. */
export async function createUser(db: Sql, label = 'ledger'): Promise<{ id: string; email: string }> {
  const email = `${label}-${crypto.randomUUID()}@example.com`;
  const [row] = await db<{ id: string }[]>`INSERT INTO users (email, name) VALUES (${email}, ${'Ledger Tester'}) RETURNING id`;
  return { id: row!.id, email };
}

/** A migrated database of its own, for checks that look at the whole ledger. */
export async function ownDatabase(max = 10): Promise<{ url: string; db: Sql }> {
  const url = await freshDatabase(inject('clusterUrl'), 'pf_ledger');
  return { url, db: connect(url, max) };
}

export { bulkPurchases } from './ledger-fixtures';
