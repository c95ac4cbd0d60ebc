// A generation worker in its own process (the crash test kills it with SIGKILL; the benchmark runs
// the app's workers this way too). Reads the same environment as the app; prints "ready" once
// its loop runs, and stops cleanly on SIGTERM.
import { startBoss, stopBoss } from '../../app/queue/boss';
import { startGenerationLoop } from '../../jobs/generation-loop';
import { closeSql } from '../../db/client';

await startBoss('web');
const loop = await startGenerationLoop();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void (async () => {
    await loop.stop();
    await stopBoss();
    await closeSql();
    process.exit(0);
  })();
});
