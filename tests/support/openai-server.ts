import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-compatible chat-completions server for tests and benchmarks (what OpenRouter speaks):
// POST /chat/completions (also under /v1 or /api/v1) with the real response and error shapes.
// Behaviour is scripted per topic (the text after "about:" in the user message, else the whole
// user message): a list of steps used one per request, the last one repeating.

export type ChatStep =
  | { kind: 'ok'; content?: string; latencyMs?: number }
  /** An error status with OpenAI's error body; 429 may carry Retry-After (seconds or a date). */
  | { kind: 'status'; status: number; message?: string; retryAfter?: string; latencyMs?: number }
  /** Never answers (the client's timeout fires); the socket is closed when the server stops. */
  | { kind: 'hang' }
  /** 200 with a body that is not valid JSON. */
  | { kind: 'malformed' }
  /** 200 with JSON but no choices / empty content. */
  | { kind: 'empty' };

export type ChatRequest = {
  topic: string;
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  authorization: string | undefined;
  /** 1 for the first request about this topic, 2 for the next... */
  attempt: number;
  at: number;
};

export type OpenAiServerOptions = {
  /** Latency of a successful answer (ms), unless the step says otherwise. */
  latencyMs?: number;
  /** Accepted bearer keys; anything else gets 401. Default: any non-empty key. */
  keys?: string[];
  /** Steps by topic, or a function deciding each request. */
  script?: Record<string, ChatStep[]> | ((req: ChatRequest) => ChatStep | undefined);
  /** The default answer's Markdown for a topic. */
  article?: (topic: string) => string;
};

export type OpenAiServer = {
  url: string;
  requests: ChatRequest[];
  /** Highest number of requests in flight at once. */
  maxInFlight: () => number;
  attemptsOf: (topic: string) => number;
  setScript: (script: OpenAiServerOptions['script']) => void;
  setLatency: (ms: number) => void;
  close: () => Promise<void>;
};

export function defaultArticle(topic: string): string {
  return `# ${topic}: a practical guide\n\nThis article explains **${topic}** in plain words.\n\n## Why it matters\n\n- First point about ${topic}\n- Second point\n\n## FAQ\n\n### Is it hard?\n\nNo.\n`;
}

/**
 * The SEO block a model writes after the article when the prompt asks for it: what
 * the worker parses into the result's SEO title, meta description, slug and focus keyword.
 */
export function defaultSeoBlock(topic: string): string {
  return `\n---SEO---\nSEO title: ${topic} made simple\nMeta description: A practical guide to ${topic}: why it matters and the first steps.\nSlug: ${topic
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-guide\nFocus keyword: ${topic}\n`;
}

/** The plan a plan request gets by default: six headings (two of them H3) and the FAQ when asked. */
export function defaultPlan(topic: string, withFaq: boolean) {
  return {
    title: `${topic}: the plan`,
    metaDescription: `Everything about ${topic}, planned.`,
    sections: [
      { level: 2, heading: 'Why it matters', intent: `Why ${topic} is worth the time.` },
      { level: 3, heading: 'The short answer', intent: 'The gist in a paragraph.' },
      { level: 2, heading: 'Getting started', intent: 'The first steps.' },
      { level: 2, heading: 'Common mistakes', intent: 'What goes wrong.' },
      { level: 3, heading: 'Fixing them', intent: 'How to recover.' },
      { level: 2, heading: 'Conclusion', intent: 'What to remember.' },
    ],
    faq: withFaq ? [`Is ${topic} hard?`, `How long does ${topic} take?`] : [],
  };
}

/** A section's text of exactly `words` words, in paragraphs of up to 60. */
export function sectionOfWords(words: number, topic: string): string {
  const list = Array.from({ length: words }, (_, i) => (i % 12 === 0 ? topic.split(/\s+/)[0]!.toLowerCase() : 'word'));
  const paragraphs: string[] = [];
  for (let i = 0; i < list.length; i += 60) paragraphs.push(list.slice(i, i + 60).join(' ') + '.');
  return paragraphs.join('\n\n');
}

/**
 * The default answer to a request: a plan (JSON) when the system message asks for one, a section
 * of the length the user message asks for ("Length: about N words") when it asks for a section,
 * else the article.
 */
function defaultAnswer(messages: { role: string; content: string }[], topic: string, article?: (topic: string) => string): string {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (system.includes('"sections"')) return JSON.stringify(defaultPlan(topic, !user.includes('Leave "faq" empty')));
  if (system.includes('Write only the section asked for')) {
    const words = Number(user.match(/Length: about (\d+) words/)?.[1] ?? 100);
    return sectionOfWords(words, topic);
  }
  const asksSeo = system.includes('---SEO---');
  return article ? article(topic) : defaultArticle(topic) + (asksSeo ? defaultSeoBlock(topic) : '');
}

/**
 * A categories-and-tags request (providers.server.ts's chooseTerms): the listed names that occur in
 * the post's title or text, and one invented name the caller must drop.
 */
export function defaultTermsAnswer(messages: { role: string; content: string }[]): string | null {
  if (!messages.some((m) => m.role === 'system' && m.content.includes('Choose categories and tags'))) return null;
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const list = (label: string) => JSON.parse(new RegExp(`^${label}: (.*)$`, 'm').exec(user)?.[1] ?? '[]') as string[];
  const post = user.slice(user.indexOf('\nTitle: ')).toLowerCase();
  const found = (names: string[]) => names.filter((n) => post.includes(n.toLowerCase()));
  return JSON.stringify({ categories: found(list('Categories')), tags: [...found(list('Tags')), 'Invented by the model'] });
}

export function topicOf(messages: { role: string; content: string }[]): string {
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const m = user.match(/about: (.*)$/m);
  return (m ? m[1]! : user).trim();
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

const errorType = (status: number) =>
  status === 401
    ? 'invalid_request_error'
    : status === 429
      ? 'rate_limit_exceeded'
      : status >= 500
        ? 'server_error'
        : 'invalid_request_error';

export async function startOpenAiServer(opts: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  let latency = opts.latencyMs ?? 0;
  let script = opts.script;
  const requests: ChatRequest[] = [];
  const attempts = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!.replace(/^\/(api\/)?v1/, '');
      if (req.method !== 'POST' || path !== '/chat/completions') {
        return json(res, 404, { error: { message: `Unknown route ${req.method} ${req.url}`, type: 'invalid_request_error', code: null } });
      }
      let body: { model?: string; messages?: { role: string; content: string }[]; temperature?: number; max_tokens?: number };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { error: { message: 'Invalid JSON body', type: 'invalid_request_error', code: null } });
      }
      const auth = req.headers.authorization;
      const key = auth?.replace(/^Bearer\s+/i, '') ?? '';
      if (!key || (opts.keys && !opts.keys.includes(key))) {
        return json(res, 401, {
          error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
        });
      }
      if (!body.model || !Array.isArray(body.messages)) {
        return json(res, 400, { error: { message: "'model' and 'messages' are required", type: 'invalid_request_error', code: null } });
      }
      const topic = topicOf(body.messages);
      const attempt = (attempts.get(topic) ?? 0) + 1;
      attempts.set(topic, attempt);
      const request: ChatRequest = {
        topic,
        model: body.model,
        messages: body.messages,
        temperature: body.temperature,
        max_tokens: body.max_tokens,
        authorization: auth,
        attempt,
        at: Date.now(),
      };
      requests.push(request);
      let step: ChatStep | undefined;
      if (typeof script === 'function') step = script(request);
      else if (script?.[topic]) {
        const steps = script[topic]!;
        step = steps[Math.min(attempt, steps.length) - 1];
      }
      step ??= { kind: 'ok' };
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let finished = false;
      const done = () => {
        if (!finished) {
          finished = true;
          inFlight--;
        }
      };
      res.on('close', done);
      switch (step.kind) {
        case 'hang':
          return;
        case 'malformed':
          return later(latency, () => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"id": "chatcmpl-broken", "choices": [ {');
          });
        case 'empty':
          return later(latency, () =>
            json(res, 200, { id: 'chatcmpl-empty', object: 'chat.completion', created: 0, model: body.model, choices: [] }),
          );
        case 'status': {
          const s = step;
          return later(s.latencyMs ?? 0, () =>
            json(
              res,
              s.status,
              {
                error: {
                  message: s.message ?? `Upstream error ${s.status}`,
                  type: errorType(s.status),
                  code: s.status === 429 ? 'rate_limit_exceeded' : null,
                },
              },
              s.retryAfter !== undefined ? { 'retry-after': s.retryAfter } : {},
            ),
          );
        }
        case 'ok': {
          const s = step;
          return later(s.latencyMs ?? latency, () => {
            const content = s.content ?? defaultTermsAnswer(body.messages ?? []) ?? defaultAnswer(body.messages ?? [], topic, opts.article);
            json(res, 200, {
              id: `chatcmpl-${requests.length}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
              usage: {
                prompt_tokens: 50,
                completion_tokens: Math.ceil(content.length / 4),
                total_tokens: 50 + Math.ceil(content.length / 4),
              },
            });
          });
        }
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: () => maxInFlight,
    attemptsOf: (topic) => attempts.get(topic) ?? 0,
    setScript: (s) => (script = s),
    setLatency: (ms) => (latency = ms),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
