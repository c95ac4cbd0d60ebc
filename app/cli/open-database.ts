import { EmbeddedStartError } from '../../db/embedded';
import { openDatabase } from '../../db/open';
import { ConfigError } from '../runtime/env.server';

/**
 * Opens the database the way server.ts does (DATABASE_URL or the embedded one; the running app's
 * embedded cluster when it runs). A setting or start-up problem is a line on stderr and an exit
 * code (2 for configuration, 1 for the embedded cluster), not a stack trace: null then.
 */
export async function openCommandDatabase(): Promise<Awaited<ReturnType<typeof openDatabase>> | null> {
  try {
    return await openDatabase({ shareRunning: true });
  } catch (err) {
    if (!(err instanceof ConfigError) && !(err instanceof EmbeddedStartError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
    return null;
  }
}
