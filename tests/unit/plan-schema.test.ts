import { describe, expect, it } from 'vitest';
import { callGate } from '../../app/utils/call-gate';
import { applyPlanEdit, parsePlanEdit, planFromAnswer, planSchema, wordsPerPart } from '../../app/utils/plan-schema';

// The plan's pure parts: a model's answer read as a plan, the run page's edits, the words each
// part is asked for, and the gate that keeps sections within the provider concurrency.

describe('plans', () => {
  it('reads a plan out of a fenced or chatty answer, cut to its limits; refuses one without title or sections', () => {
    const answer =
      'Sure! ```json\n{"title":"  Brew  better ","metaDescription":"Short.","sections":[{"level":3,"heading":"Kit","intent":"What you need"},' +
      '{"level":2,"heading":""},{"level":7,"heading":"Steps"}],"faq":["Why?", 3]}\n```';
    expect(planFromAnswer(answer)).toEqual({
      title: 'Brew better',
      metaDescription: 'Short.',
      // An outline cannot open with a subsection; an unknown level is an H2; an empty heading goes.
      sections: [
        { level: 2, heading: 'Kit', intent: 'What you need' },
        { level: 2, heading: 'Steps', intent: '' },
      ],
      faq: ['Why?'],
    });
    expect(planFromAnswer('# An article instead')).toBeNull();
    expect(planFromAnswer('{"title":"No sections","sections":[]}')).toBeNull();
    expect(planFromAnswer('{"sections":[{"heading":"x"}]}')).toBeNull();
  });

  it('applies the form’s edits: move up and down at the ends, remove, add', () => {
    const s = ['a', 'b', 'c'].map((heading) => ({ level: 2, heading, intent: '' }));
    const names = (list: typeof s) => list.map((x) => x.heading).join('');
    expect(names(applyPlanEdit(s, parsePlanEdit('up:1')))).toBe('bac');
    expect(names(applyPlanEdit(s, parsePlanEdit('up:0')))).toBe('abc');
    expect(names(applyPlanEdit(s, parsePlanEdit('down:2')))).toBe('abc');
    expect(names(applyPlanEdit(s, parsePlanEdit('remove:1')))).toBe('ac');
    expect(applyPlanEdit(s, parsePlanEdit('add'))).toHaveLength(4);
    expect(names(applyPlanEdit(s, parsePlanEdit('drop everything')))).toBe('abc');
  });

  it('shares the length between the sections and the FAQ', () => {
    expect(wordsPerPart(1200, 6, 0)).toEqual({ section: 200, faq: 0 });
    expect(wordsPerPart(1200, 5, 3)).toEqual({ section: 200, faq: 200 });
    expect(planSchema().safeParse({ title: 'T', sections: [{ level: '4', heading: 'x' }] }).success).toBe(false);
    expect(planSchema().parse({ title: 'T', sections: [{ level: '3', heading: 'x' }] })).toEqual({
      title: 'T',
      metaDescription: '',
      sections: [{ level: 3, heading: 'x', intent: '' }],
      faq: [],
    });
  });

  it('the call gate runs at most its size at once, the rest in order', async () => {
    const gate = callGate(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        gate.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
});
