// `npm run images -- <command>`: moves the generated images between Postgres and S3-compatible
// object storage (the S3_* settings), checks that every image row has its object, and deletes
// objects no row points at (USAGE below).
import { parseArgs } from 'node:util';
import { migrate } from '../../db/migrate';
import { openCommandDatabase } from './open-database';
import type { Sql } from '../../db/client';
import {
  moveImagesToDatabase,
  moveImagesToStorage,
  pruneUnreferencedObjects,
  verifyImageStorage,
} from '../services/image-migration.server';
import { loadEnv } from '../runtime/env.server';
import { StorageUnavailable } from '../runtime/object-storage.server';

const USAGE = `Usage: npm run images -- <command> [--batch N]

Commands (each needs the S3_* settings; each can be stopped and run again, and goes on where it stopped):
  to-s3     moves every image still in Postgres into the bucket
  to-db     moves every image in the bucket back into Postgres, deleting its object
  verify    checks that every image row pointing at the bucket has its object (exit 1 when one is
            missing) and counts objects no row points at
  prune     deletes the objects no row points at that are older than --older-than-hours (default 24)

  --batch N   images per batch (default 50)
  --older-than-hours N   prune only objects at least this old (default 24)
  --help, -h  this text`;

class UsageError extends Error {}

export async function run(argv: string[], out: (line: string) => void, sql: Sql): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { batch: { type: 'string' }, 'older-than-hours': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  const command = positionals[0];
  if (values.help || !command || command === 'help') {
    out(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`Unexpected argument "${positionals[1]}"`);
  const batchSize = values.batch === undefined ? 50 : Number(values.batch);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 1000)
    throw new UsageError('--batch must be an integer from 1 to 1000');
  if (!loadEnv().S3_BUCKET) throw new UsageError('S3_BUCKET (and the other S3_* settings) must be set');
  switch (command) {
    case 'to-s3': {
      const moved = await moveImagesToStorage({ batchSize, onBatch: (n) => out(`moved ${n} so far`) }, sql);
      out(`Done: ${moved} images moved to object storage.`);
      return 0;
    }
    case 'to-db': {
      const { moved, missing } = await moveImagesToDatabase({ batchSize, onBatch: (n) => out(`moved ${n} so far`) }, sql);
      out(`Done: ${moved} images moved to Postgres.`);
      if (missing.length) out(`${missing.length} rows kept: their object is missing (${missing.slice(0, 20).join(', ')})`);
      return missing.length ? 1 : 0;
    }
    case 'verify': {
      const r = await verifyImageStorage(sql);
      out(`images in Postgres: ${r.inDatabase}`);
      out(`images in object storage: ${r.inStorage}`);
      out(`rows whose object is missing: ${r.missingCount}${r.missing.length ? ` (${r.missing.slice(0, 20).join(', ')})` : ''}`);
      out(`objects no row points at: ${r.unreferencedCount} (of which queued for deletion: ${r.waitingDeletion})`);
      out(r.ok ? 'OK' : 'PROBLEMS FOUND');
      return r.ok ? 0 : 1;
    }
    case 'prune': {
      const hours = values['older-than-hours'] === undefined ? 24 : Number(values['older-than-hours']);
      if (!Number.isFinite(hours) || hours < 0) throw new UsageError('--older-than-hours must be a number of hours, 0 or more');
      const deleted = await pruneUnreferencedObjects(hours * 3600_000, sql);
      out(`Done: ${deleted} objects no row points at deleted.`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

/** The command: opens and migrates the database as the app does, runs, sets the exit code. */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // The usage, and a missing bucket, are answered without opening a database.
  if (argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === 'help')) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  try {
    if (!loadEnv().S3_BUCKET) throw new UsageError('S3_BUCKET (and the other S3_* settings) must be set');
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const db = await openCommandDatabase();
  if (!db) return;
  try {
    await migrate(db.sql);
    process.exitCode = await run(argv, (l) => process.stdout.write(l + '\n'), db.sql);
  } catch (err) {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (usage) process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    else if (err instanceof StorageUnavailable) process.stderr.write(`${err.message} (${err.detail}); run the command again to go on\n`);
    else process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = usage ? 2 : 1;
  } finally {
    await db.close();
  }
}
