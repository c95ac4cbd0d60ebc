import { z } from 'zod';
import { MAX_TITLE_KEYWORDS, seedValue } from '~/catalogue';
import type { Translate } from '~/utils/auth-schemas';
import { keywordLines } from '~/utils/text-lines';

// POST /api/generate-blog-title body, shared by the JSON route and the no-JavaScript form.

export { keywordLines };

const optionalText = z.string().max(200).optional().catch(undefined);

export const titleRequestSchema = (t: Translate) =>
  z
    .object({
      keywords: z.union([z.string().max(100_000), z.array(z.string().max(1000)).max(1000)]).optional(),
      multipleKeywords: z.preprocess((v) => v === true || v === 'true' || v === 'on', z.boolean()).optional(),
      model: optionalText,
      language: optionalText,
      toneOfVoice: optionalText,
      articleType: optionalText,
      readingLevel: optionalText,
      pointOfView: optionalText,
      writingStyle: optionalText,
    })
    .passthrough()
    .transform((body, ctx) => {
      const raw = Array.isArray(body.keywords) ? body.keywords.join('\n') : (body.keywords ?? '');
      const lines = keywordLines(raw);
      const multiple = body.multipleKeywords ?? lines.length > 1;
      const keywords = multiple ? lines : lines.length ? [lines.join(' ')] : [];
      if (!keywords.length) {
        ctx.addIssue({ code: 'custom', path: ['keywords'], message: t('titles.missingInput') });
        return z.NEVER;
      }
      if (keywords.length > MAX_TITLE_KEYWORDS) {
        ctx.addIssue({ code: 'custom', path: ['keywords'], message: t('titles.tooMany', { max: MAX_TITLE_KEYWORDS }) });
        return z.NEVER;
      }
      return {
        keywords,
        multiple,
        options: {
          model: body.model,
          language: body.language,
          toneOfVoice: body.toneOfVoice,
          articleType: body.articleType,
          readingLevel: seedValue('readingLevel', body.readingLevel) as string | undefined,
          pointOfView: seedValue('pointOfView', body.pointOfView) as string | undefined,
          writingStyle: body.writingStyle,
        },
      };
    });
