import type pino from 'pino';

// What a process does with an error nothing caught (a throw from a timer or an event, a rejected
// promise nobody awaited): its state is unknown, so it never carries on. It logs the error once,
// with its stack and where it came from, gives `cleanup` (stopping an embedded Postgres) a short
// moment, and exits with FATAL_EXIT_CODE for its supervisor (Docker's restart policy, systemd,
// Kubernetes) to start it again. Its generation items are handed on by their leases, its jobs by
// pg-boss's expiry: nothing is lost by the exit.

/** EX_SOFTWARE: told apart from a configuration error (1) in a supervisor's logs. */
export const FATAL_EXIT_CODE = 70;
/** The longest cleanup may take before the process exits anyway. */
export const FATAL_CLEANUP_MS = 3000;

export function exitOnUncaughtErrors(logger: pino.Logger, context: Record<string, unknown>, cleanup: () => Promise<unknown>): void {
  let failing = false;
  process.on('uncaughtException', (err, origin) => {
    if (failing) return; // a second fault while cleaning up: the exit below is already on its way
    failing = true;
    logger.fatal(
      { err, origin, ...context, pid: process.pid, uptimeSeconds: Math.round(process.uptime()) },
      'uncaught error: the process exits for its supervisor to restart it',
    );
    const exit = () => process.exit(FATAL_EXIT_CODE);
    setTimeout(exit, FATAL_CLEANUP_MS).unref();
    cleanup().then(exit, exit);
  });
}
