import { DEFAULT_IMAGE_MODEL, DEFAULT_TEXT_MODEL, imageDefaults, textDefaults, type ModelKind } from '~/catalogue';
import type { GenerationFormValues } from './generation-form';

/**
 * The generation form's starting values: the catalogue defaults. The input tools feature
 * merges last-used values or a template over them (`{ ...defaultGenerationValues(type), ...saved }`)
 * in the /app loader.
 */
export function defaultGenerationValues(type: ModelKind): GenerationFormValues {
  return {
    type,
    prompts: '',
    model: type === 'text' ? DEFAULT_TEXT_MODEL : DEFAULT_IMAGE_MODEL,
    language: textDefaults.language,
    toneOfVoice: textDefaults.toneOfVoice,
    pointOfView: textDefaults.pointOfView,
    articleType: textDefaults.articleType,
    readingLevel: textDefaults.readingLevel,
    contentLength: textDefaults.contentLength,
    writingStyle: textDefaults.writingStyle,
    includeIntro: textDefaults.includeIntro,
    includeOutro: textDefaults.includeOutro,
    includeHeadings: textDefaults.includeHeadings,
    includeBulletPoints: textDefaults.includeBulletPoints,
    includeQA: textDefaults.includeQA,
    includeKeyTakeaways: textDefaults.includeKeyTakeaways,
    embedImage: textDefaults.embedImage,
    aspectRatio: imageDefaults.aspectRatio,
    stylePreset: imageDefaults.stylePreset,
    guidanceScale: imageDefaults.guidanceScale,
    numOutputs: imageDefaults.numOutputs,
  };
}
