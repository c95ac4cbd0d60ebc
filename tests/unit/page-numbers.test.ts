import { describe, expect, it } from 'vitest';
import { pageNumbers } from '~/utils/page-numbers';

describe('pageNumbers (results pagination)', () => {
  it('lists every page when there are 7 or fewer', () => {
    expect(pageNumbers(1, 1)).toEqual([1]);
    expect(pageNumbers(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageNumbers(1, 0)).toEqual([]);
  });

  it('shows first, last and the neighbours of the current page with ellipses above 7', () => {
    expect(pageNumbers(1, 20)).toEqual([1, 2, 'ellipsis-end', 20]);
    expect(pageNumbers(2, 20)).toEqual([1, 2, 3, 'ellipsis-end', 20]);
    expect(pageNumbers(3, 20)).toEqual([1, 2, 3, 4, 'ellipsis-end', 20]);
    expect(pageNumbers(10, 20)).toEqual([1, 'ellipsis-start', 9, 10, 11, 'ellipsis-end', 20]);
    expect(pageNumbers(19, 20)).toEqual([1, 'ellipsis-start', 18, 19, 20]);
    expect(pageNumbers(20, 20)).toEqual([1, 'ellipsis-start', 19, 20]);
    expect(pageNumbers(8, 8)).toEqual([1, 'ellipsis-start', 7, 8]);
  });

  it('clamps a page outside the range', () => {
    expect(pageNumbers(99, 9)).toEqual([1, 'ellipsis-start', 8, 9]);
    expect(pageNumbers(-3, 9)).toEqual([1, 2, 'ellipsis-end', 9]);
  });
});
