import { describe, expect, it } from 'vitest';
import { seedLabels } from '../../app/catalogue';
import { textGenerationSchema } from '../../app/utils/generation-schema';
import { templateSettingsFor } from '../../app/utils/input-settings';
import { titleRequestSchema } from '../../app/utils/title-request';

// The original form's labels (its default reading level '8th & 9th grade, easily
// understood'; points of view 'First', 'Second', 'Third') are read as the catalogue's values by
// every schema that takes the field, and anything else is still refused.

const t = (key: string) => key;

describe("the original form's labels", () => {
  it('start a run, read as the catalogue value', () => {
    const parsed = textGenerationSchema(t).parse({
      prompts: 'soup',
      model: 'openai/gpt-4o-mini-search-preview',
      readingLevel: '8th & 9th grade, easily understood',
      pointOfView: 'Third',
    });
    expect(parsed).toMatchObject({ readingLevel: '8th & 9th grade', pointOfView: 'Third person' });
    for (const [field, labels] of Object.entries(seedLabels)) {
      for (const [label, value] of Object.entries(labels)) {
        const one = textGenerationSchema(t).parse({ prompts: 'x', model: 'openai/gpt-4o-mini-search-preview', [field]: label });
        expect(one[field as 'readingLevel']).toBe(value);
      }
    }
    expect(
      textGenerationSchema(t).safeParse({ prompts: 'x', model: 'openai/gpt-4o-mini-search-preview', readingLevel: 'PhD' }).success,
    ).toBe(false);
  });

  it('are read the same by templates and title generation', () => {
    const template = templateSettingsFor('text')
      .strict.partial()
      .parse({ readingLevel: '8th & 9th grade, easily understood', pointOfView: 'First' });
    expect(template).toMatchObject({ readingLevel: '8th & 9th grade', pointOfView: 'First person' });
    const titles = titleRequestSchema(t).parse({ keywords: 'soup', readingLevel: '8th & 9th grade, easily understood' });
    expect(titles.options.readingLevel).toBe('8th & 9th grade');
  });
});
