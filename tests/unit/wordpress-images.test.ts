import { describe, expect, it } from 'vitest';
import { ourImageId, ourImages, rewriteImageSources } from '../../app/utils/wordpress-images';

// The image rewriting alone: HTML in, HTML out, given image id → media URL.

const APP = 'https://app.postforge.test';
const A = '0b9d3a4e-1f2a-4c3b-9d8e-7f6a5b4c3d2e';
const B = '1c8e2b5f-2a3b-4d4c-8e9f-8a7b6c5d4e3f';

describe('our images in post HTML', () => {
  it('knows our URLs: relative, absolute on APP_URL, and nothing else', () => {
    expect(ourImageId(`/images/${A}`, APP)).toBe(A);
    expect(ourImageId(`${APP}/images/${A.toUpperCase()}`, APP)).toBe(A);
    expect(ourImageId(`https://elsewhere.test/images/${A}`, APP)).toBeNull();
    expect(ourImageId(`/images/${A}?x=1`, APP)).toBeNull();
    expect(ourImageId('/images/not-an-id', APP)).toBeNull();
    expect(ourImageId('data:image/png;base64,AAAA', APP)).toBeNull();
  });

  it('lists each image once, in order, with the alt text of its first use', () => {
    const html = `<p><img alt="First &amp; best" src="/images/${A}"></p><img src='${APP}/images/${B}'><img src="/images/${A}" alt="again">`;
    expect(ourImages(html, APP)).toEqual([
      { id: A, alt: 'First & best' },
      { id: B, alt: '' },
    ]);
  });

  it('rewrites only the src of mapped images, keeping every other attribute and image (block markup too)', () => {
    const html =
      `<!-- wp:image --><figure class="wp-block-image"><img src="/images/${A}" alt="Alt A" width="10"/></figure><!-- /wp:image -->` +
      `<p><img src="https://cdn.test/x.png" alt="theirs"><img src="/images/${B}" alt="unmapped"></p>`;
    const out = rewriteImageSources(html, new Map([[A, 'https://wp.test/wp-content/uploads/a.png?v="1"']]), APP);
    expect(out).toBe(
      `<!-- wp:image --><figure class="wp-block-image"><img src="https://wp.test/wp-content/uploads/a.png?v=&quot;1&quot;" alt="Alt A" width="10"/></figure><!-- /wp:image -->` +
        `<p><img src="https://cdn.test/x.png" alt="theirs"><img src="/images/${B}" alt="unmapped"></p>`,
    );
  });
});
