import { startOpenAiServer, type ChatStep, type OpenAiServer } from '../support/openai-server';
import { startReplicateServer, type PredictionStep, type ReplicateServer } from '../support/replicate-server';

// The AI providers of the end-to-end run: the backend's test servers, scripted by markers in the
// topic so each test picks its outcome without sharing state:
//   "[fail]"  → the text provider refuses it every time (the row ends failed with the message)
//   "[flaky]" → refused on the first request only (a retry then succeeds)
//   "[slow]"  → answers after 1.5 s (progress can be seen)
//   "[stalled]" → answers after 8 s (a run is still going when a test cancels it: a cancel comes
//                 1-3 s after Start, and the test waits out the stall of the items already started)
//   "[html]"   → an article in raw HTML: its own <h1>, a broken <img src=x>, a tracking pixel and
//                a relative link (what sanitizing must take out)
// Anything else answers after 200 ms with the server's default article / a PNG.
// A title request (POST /api/generate-blog-title) is answered with `Title for <keyword>` per keyword,
// or with an HTML article when a keyword has "[junk]".
export const PROVIDER_FAILURE = 'The model refused this topic';
export const titleFor = (keyword: string) => `Title for ${keyword}`;
export const HTML_ARTICLE =
  '<h1>Growing basil indoors</h1>\n<p>Light matters.<img src=x> <img src="https://tracker.invalid/pixel.gif" width="1" height="1"> ' +
  '<a href="/api/logout">Sign out here</a> and <a href="https://example.com/basil">a basil guide</a>.</p>';

function chat(topic: string, attempt: number): ChatStep | undefined {
  if (topic.startsWith('Write one engaging') && topic.includes('\nKeywords:\n')) {
    const keywords = topic
      .split('\nKeywords:\n')[1]!
      .split('\n')
      .map((line) => line.replace(/^\d+\.\s*/, '').trim())
      .filter(Boolean);
    // A keyword with "[junk]" gets what a confused model sends: an HTML article instead of titles.
    if (keywords.some((k) => k.includes('[junk]')))
      return {
        kind: 'ok',
        latencyMs: 200,
        content: `<article><h1>Gardening</h1>${'<p>Gardening is <b>great</b>. </p>'.repeat(200)}</article>`,
      };
    return { kind: 'ok', latencyMs: 200, content: JSON.stringify({ titles: keywords.map(titleFor) }) };
  }
  if (topic.includes('[fail]')) return { kind: 'status', status: 400, message: PROVIDER_FAILURE };
  if (topic.includes('[flaky]') && attempt === 1) return { kind: 'status', status: 400, message: PROVIDER_FAILURE };
  if (topic.includes('[slow]')) return { kind: 'ok', latencyMs: 1500 };
  if (topic.includes('[stalled]')) return { kind: 'ok', latencyMs: 8_000 };
  if (topic.includes('[html]')) return { kind: 'ok', latencyMs: 200, content: HTML_ARTICLE };
  return { kind: 'ok', latencyMs: 200 };
}

function prediction(prompt: string): PredictionStep | undefined {
  if (prompt.includes('[fail]')) return { kind: 'failed', error: PROVIDER_FAILURE };
  return { kind: 'ok', latencyMs: 200 };
}

export type E2eProviders = { openai: OpenAiServer; replicate: ReplicateServer; env: Record<string, string>; stop: () => Promise<void> };

export async function startE2eProviders(): Promise<E2eProviders> {
  const openai = await startOpenAiServer({ script: (req) => chat(req.topic, req.attempt) });
  const replicate = await startReplicateServer({ script: (req) => prediction(req.prompt) });
  return {
    openai,
    replicate,
    env: {
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'e2e-openrouter-key',
      REPLICATE_BASE_URL: replicate.url,
      REPLICATE_API_TOKEN: 'e2e-replicate-token',
      GENERATION_PROVIDER_ATTEMPTS: '2',
    },
    stop: async () => {
      await Promise.all([openai.close(), replicate.close()]);
    },
  };
}
