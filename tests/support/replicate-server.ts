import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

// Replicate's predictions API for tests: POST /v1/models/{owner}/{name}/predictions (with
// `Prefer: wait` answering the finished prediction, without it a `starting` one),
// GET /v1/predictions/{id}, and the output files served by the same server (PNG bytes).
// Behaviour is scripted per prompt (the request's input.prompt up to the first comma, i.e. without
// the style suffix): a list of steps, one per request, the last repeating.

export type PredictionStep =
  | { kind: 'ok'; latencyMs?: number; outputs?: number }
  /** Answers `processing` to the create call; the GET succeeds after `polls` polls. */
  | { kind: 'slow'; polls?: number }
  /** An HTTP error with Replicate's problem body; 429 may carry Retry-After. */
  | { kind: 'status'; status: number; detail?: string; retryAfter?: string }
  /** The prediction ends `failed` with this error. */
  | { kind: 'failed'; error?: string }
  /** The output URL answers 404. */
  | { kind: 'missing-file' }
  | { kind: 'hang' };

export type PredictionRequest = {
  model: string;
  prompt: string;
  input: Record<string, unknown>;
  authorization: string | undefined;
  prefer: string | undefined;
  attempt: number;
};

export type ReplicateServerOptions = {
  latencyMs?: number;
  keys?: string[];
  script?: Record<string, PredictionStep[]> | ((req: PredictionRequest) => PredictionStep | undefined);
};

export type ReplicateServer = {
  url: string;
  requests: PredictionRequest[];
  fileRequests: () => number;
  setScript: (s: ReplicateServerOptions['script']) => void;
  close: () => Promise<void>;
};

/** A valid w×h PNG of one colour. */
export function pngBytes(w = 4, h = 4, rgb: [number, number, number] = [200, 80, 40]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(rgb, y * (w * 3 + 1) + 1 + x * 3);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

type Prediction = {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  output: string[] | null;
  error: string | null;
  logs: string;
  created_at: string;
  completed_at: string | null;
  urls: { get: string; cancel: string };
  pollsLeft: number;
  step: PredictionStep;
};

export async function startReplicateServer(opts: ReplicateServerOptions = {}): Promise<ReplicateServer> {
  let script = opts.script;
  const latency = opts.latencyMs ?? 0;
  const requests: PredictionRequest[] = [];
  const attempts = new Map<string, number>();
  const predictions = new Map<string, Prediction>();
  let files = 0;
  let base = '';
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  const view = (p: Prediction) => {
    const { pollsLeft: _p, step: _s, ...rest } = p;
    return rest;
  };
  const succeed = (p: Prediction, outputs: number) => {
    p.status = 'succeeded';
    p.output = Array.from({ length: outputs }, (_, i) => `${base}/files/${p.id}/${i}.png`);
    p.completed_at = new Date().toISOString();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const file = path.match(/^\/files\/([\w-]+)\/(\d+)\.png$/);
      if (req.method === 'GET' && file) {
        files++;
        const p = predictions.get(file[1]!);
        if (!p || p.step.kind === 'missing-file') return json(res, 404, { detail: 'Not found' });
        const png = pngBytes(4 + Number(file[2]), 4);
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        return res.end(png);
      }
      const auth = req.headers.authorization;
      const key = auth?.replace(/^(Bearer|Token)\s+/i, '') ?? '';
      if (!key || (opts.keys && !opts.keys.includes(key))) {
        return json(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
      }
      const get = path.match(/^\/v1\/predictions\/([\w-]+)$/);
      if (req.method === 'GET' && get) {
        const p = predictions.get(get[1]!);
        if (!p) return json(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
        if (p.status === 'processing' || p.status === 'starting') {
          if (p.pollsLeft > 0) p.pollsLeft--;
          else if (p.step.kind === 'failed') {
            p.status = 'failed';
            p.error = p.step.error ?? 'Prediction failed';
          } else succeed(p, Number(p.input.num_outputs ?? 1));
        }
        return json(res, 200, view(p));
      }
      const create = path.match(/^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/);
      if (req.method !== 'POST' || !create) return json(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
      let body: { input?: Record<string, unknown> };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { title: 'Invalid JSON', detail: 'Invalid JSON', status: 400 });
      }
      const input = body.input ?? {};
      const prompt = String(input.prompt ?? '')
        .split(',')[0]!
        .trim();
      const attempt = (attempts.get(prompt) ?? 0) + 1;
      attempts.set(prompt, attempt);
      const request: PredictionRequest = {
        model: `${create[1]}/${create[2]}`,
        prompt,
        input,
        authorization: auth,
        prefer: req.headers.prefer as string | undefined,
        attempt,
      };
      requests.push(request);
      let step: PredictionStep | undefined;
      if (typeof script === 'function') step = script(request);
      else if (script?.[prompt]) step = script[prompt]![Math.min(attempt, script[prompt]!.length) - 1];
      step ??= { kind: 'ok' };
      if (step.kind === 'hang') return;
      if (step.kind === 'status') {
        const s = step;
        return json(
          res,
          s.status,
          { title: 'Error', detail: s.detail ?? `Error ${s.status}`, status: s.status },
          s.retryAfter ? { 'retry-after': s.retryAfter } : {},
        );
      }
      const id = crypto.randomBytes(10).toString('hex');
      const p: Prediction = {
        id,
        model: request.model,
        version: 'test',
        input,
        status: 'starting',
        output: null,
        error: null,
        logs: '',
        created_at: new Date().toISOString(),
        completed_at: null,
        urls: { get: `${base}/v1/predictions/${id}`, cancel: `${base}/v1/predictions/${id}/cancel` },
        pollsLeft: step.kind === 'slow' ? (step.polls ?? 1) : 0,
        step,
      };
      predictions.set(id, p);
      const finish = () => {
        if (step.kind === 'failed') {
          p.status = 'failed';
          p.error = step.error ?? 'Prediction failed';
          p.completed_at = new Date().toISOString();
        } else if (step.kind === 'slow') {
          p.status = 'processing';
        } else {
          succeed(p, step.kind === 'ok' && step.outputs ? step.outputs : Number(input.num_outputs ?? 1));
        }
        json(res, 201, view(p));
      };
      const wait = typeof request.prefer === 'string' && /wait/.test(request.prefer);
      if (!wait) return json(res, 201, view(p));
      later(step.kind === 'ok' && step.latencyMs !== undefined ? step.latencyMs : latency, finish);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/v1`,
    requests,
    fileRequests: () => files,
    setScript: (s) => (script = s),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
