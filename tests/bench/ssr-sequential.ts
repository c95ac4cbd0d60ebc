/**
 * bench:ssr's one-request-at-a-time measure: what one user's page costs the server, with nothing
 * interleaved. For each target, a warm-up, then N requests one after the other on one kept-alive
 * connection; the server's CPU time (user + system, from /proc) over those requests divided by N,
 * and the median latency. The targets take turns within a round and the rounds are repeated, so a
 * burst of another process on the shared machine spreads over all of them; the figure shown is the
 * median of the rounds.
 */
import fs from 'node:fs';
import http from 'node:http';

/** `pid`: the server process that answers `url`; targets of one `group` take turns request by request. */
export type SequentialTarget = { name: string; url: string; headers: Record<string, string>; pid: number; group?: string };
export type SequentialRound = { cpuMs: number; medianCpuMs: number; medianMs: number };
export type SequentialRow = {
  name: string;
  status: number;
  cpuMs: number;
  medianCpuMs: number;
  medianMs: number;
  rounds: SequentialRound[];
};
export type SequentialOptions = { requests: number; warmup: number; rounds: number };

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One request on the kept-alive connection: its status and its time to the last byte, in ms. The body stays as sent (compressed). */
function ask(agent: http.Agent, url: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode!, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    });
    req.on('error', reject);
  });
}

/**
 * The CPU time of every thread of a process so far, in ms with the scheduler's nanosecond
 * resolution (/proc/<pid>/task/<tid>/schedstat): fine enough to time one request, where the
 * process's own figure in /proc/<pid>/stat counts clock ticks of 10 ms. Read from outside, so the
 * server does no work for it; threads gone between two reads drop out of the sum (the server's
 * threads live as long as it does).
 */
export function threadsCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

/**
 * `serverCpuMs`: the server process's CPU time so far, in ms (the round's total over its requests);
 * `requestCpuMs`, finer, times each request alone for the median (a collection or a burst of
 * compilation lands on a few requests: the median is the request without them, the mean with them).
 */
export async function measureSequential(
  targets: SequentialTarget[],
  serverCpuMs: (target: SequentialTarget) => number,
  requestCpuMs: (target: SequentialTarget) => number,
  { requests, warmup, rounds }: SequentialOptions,
): Promise<SequentialRow[]> {
  // One kept-alive connection per server: targets of one group (`group`, e.g. the same page of two
  // builds) take turns request by request, so both meet the same moments of a shared machine.
  const agents = new Map<number, http.Agent>();
  const agentOf = (t: SequentialTarget) => {
    if (!agents.has(t.pid)) agents.set(t.pid, new http.Agent({ keepAlive: true, maxSockets: 1 }));
    return agents.get(t.pid)!;
  };
  const seen = new Map<string, { status: number; rounds: SequentialRound[] }>(targets.map((t) => [t.name, { status: 0, rounds: [] }]));
  const groups = [...new Set(targets.map((t) => t.group ?? t.name))].map((g) => targets.filter((t) => (t.group ?? t.name) === g));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const group of groups) {
        // The first round warms longer: a fresh server is still compiling its hot paths.
        for (let i = 0; i < (round === 0 ? 4 * warmup : warmup); i++) for (const t of group) await ask(agentOf(t), t.url, t.headers);
        const runs = group.map((t) => ({ t, latencies: [] as number[], cpus: [] as number[], status: 0, cpuTotal: 0 }));
        for (let i = 0; i < requests; i++) {
          for (const run of runs) {
            const before = serverCpuMs(run.t);
            const cpuBefore = requestCpuMs(run.t);
            const answer = await ask(agentOf(run.t), run.t.url, run.t.headers);
            run.cpus.push(requestCpuMs(run.t) - cpuBefore);
            run.cpuTotal += serverCpuMs(run.t) - before;
            run.latencies.push(answer.ms);
            run.status = answer.status;
          }
        }
        for (const run of runs) {
          const cpuMs = run.cpuTotal / requests;
          const row = seen.get(run.t.name)!;
          row.status = run.status;
          row.rounds.push({ cpuMs, medianCpuMs: median(run.cpus), medianMs: median(run.latencies) });
          process.stderr.write(
            `  one at a time, round ${round + 1}: ${run.t.name} ${cpuMs.toFixed(2)} ms CPU/req, median ${median(run.cpus).toFixed(2)}\n`,
          );
        }
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return targets.map((t) => {
    const { status, rounds: measured } = seen.get(t.name)!;
    return {
      name: t.name,
      status,
      cpuMs: median(measured.map((r) => r.cpuMs)),
      medianCpuMs: median(measured.map((r) => r.medianCpuMs)),
      medianMs: median(measured.map((r) => r.medianMs)),
      rounds: measured,
    };
  });
}
