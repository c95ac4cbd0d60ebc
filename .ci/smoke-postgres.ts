// A throwaway PostgreSQL for .ci/docker-smoke.sh: the project's embedded one in DIR on PORT.
// Prints its URL once it accepts connections, stops it on SIGTERM.
import { startEmbeddedPostgres } from '../db/embedded';

const [dir, port] = process.argv.slice(2);
const pg = await startEmbeddedPostgres({ dataDir: dir!, port: Number(port), persistent: false, fast: true });
console.log(pg.url);
const stop = () => void pg.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setInterval(() => {}, 60_000);
