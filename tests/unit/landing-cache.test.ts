import { describe, expect, it } from 'vitest';
import { landingKey, landingRequestKey } from '~/runtime/landing-cache.server';

describe('landingRequestKey', () => {
  const plainEn = landingKey({ language: 'en', timeZone: 'UTC', theme: 'light' });

  it('is the key of the root data the request would be rendered from', () => {
    expect(landingRequestKey('GET', '/', undefined, 'en-US,en;q=0.9')).toBe(plainEn);
    expect(landingRequestKey('GET', '/', 'language=zh-HK', 'en')).toBe(landingKey({ language: 'zh-HK', timeZone: 'UTC', theme: 'light' }));
    expect(landingRequestKey('GET', '/', 'tz=Asia/Hong_Kong; theme=dark', 'zh-HK')).toBe(
      landingKey({ language: 'zh-HK', timeZone: 'Asia/Hong_Kong', theme: 'dark' }),
    );
  });

  it('treats a malformed or unknown variant value as the root loader does', () => {
    expect(landingRequestKey('GET', '/', 'language=%', 'en')).toBe(plainEn);
    expect(landingRequestKey('GET', '/', 'tz=Mars/Olympus', 'en')).toBe(plainEn);
    expect(landingRequestKey('GET', '/', 'theme=blue', 'en')).toBe(plainEn);
  });

  it('is null for anything that may be personal or is not the plain landing page', () => {
    expect(landingRequestKey('POST', '/', undefined, 'en')).toBeNull();
    expect(landingRequestKey('HEAD', '/', undefined, 'en')).toBeNull();
    expect(landingRequestKey('GET', '/?ref=x', undefined, 'en')).toBeNull();
    expect(landingRequestKey('GET', '/pricing', undefined, 'en')).toBeNull();
    expect(landingRequestKey('GET', '/', '__session=abc', 'en')).toBeNull();
    expect(landingRequestKey('GET', '/', 'toast=xyz; language=en', 'en')).toBeNull();
    expect(landingRequestKey('GET', '/', 'campaign=spring', 'en')).toBeNull();
  });
});
