// The drip planner: results + a site's rules + its time zone -> publish instants.
// Pure (no clock, no database): the caller passes "now" (notBefore), what is already on the site's
// days (taken) and the seed, so a re-plan with the same inputs gives the same instants.
//
// A day's window is a wall-clock range in the zone. Around a daylight-saving change it is not one
// stretch of real time: on a spring-forward day 01:30-03:30 in New York is 01:30-01:59 then
// 03:00-03:29 (one real hour), on a fall-back day 01:00-02:00 is that hour twice (two real hours).
// windowIntervals() finds those stretches exactly from the zone's offset on each side of the
// change, so no instant it returns has a local time outside the window.

import { offsetMinutes, instantToZoned } from './zoned-time';
import { seededRandom } from './seeded-random';

export const DRIP_MAX_PER_DAY = 48;
export const DRIP_SPREADS = ['even', 'random'] as const;
export type DripSpread = (typeof DRIP_SPREADS)[number];

export type DripRules = {
  /** At most this many posts on one local day of the site (what was already there counts). */
  perDay: number;
  /** The window, minutes after local midnight: [windowStart, windowEnd). */
  windowStart: number;
  windowEnd: number;
  /** Local weekdays to publish on, 0 = Sunday … 6 = Saturday. */
  weekdays: number[];
  spread: DripSpread;
};

export type DripPlanInput = {
  count: number;
  rules: DripRules;
  timeZone: string;
  /** The first local day (YYYY-MM-DD) to publish on. */
  startDate: string;
  /** No instant before this one (the present, when planning for real). */
  notBefore: Date;
  /** Random spread: the same seed gives the same times. */
  seed: number;
  /** Publications already on the site's days (queued or published): they use up the day's N. */
  taken?: Date[];
  /** Give up (no_capacity) after this many days. */
  maxDays?: number;
};

export class DripPlanError extends Error {
  constructor(readonly code: 'bad_rules' | 'bad_date' | 'no_capacity') {
    super(code);
    this.name = 'DripPlanError';
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "09:30" -> 570; null when not a wall-clock time ("24:00" is allowed as the end of a day). */
export function minutesOf(time: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(time.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min > 0)) return null;
  return h * 60 + min;
}

/** 570 -> "09:30". */
export function timeOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Why these rules cannot be planned with (a message key of the `wordpress:drip.rules` group), or null. */
export function dripRulesProblem(rules: DripRules): 'perDay' | 'window' | 'weekdays' | null {
  if (!Number.isInteger(rules.perDay) || rules.perDay < 1 || rules.perDay > DRIP_MAX_PER_DAY) return 'perDay';
  const { windowStart: a, windowEnd: b } = rules;
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b > 1440 || b <= a) return 'window';
  if (!rules.weekdays.length || rules.weekdays.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) return 'weekdays';
  return null;
}

function parseDate(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== date ? null : at;
}

const dateOf = (utcMidnight: number) => new Date(utcMidnight).toISOString().slice(0, 10);

/** The local weekday (0 = Sunday) of a YYYY-MM-DD date. */
export function weekdayOf(date: string): number {
  return new Date(parseDate(date) ?? Number.NaN).getUTCDay();
}

/**
 * The stretches of real time, [from, to) in ms, whose local time in `timeZone` is on `date` and
 * inside [windowStart, windowEnd) minutes. One stretch on most days, two around a DST change.
 */
export function windowIntervals(date: string, windowStart: number, windowEnd: number, timeZone: string): [number, number][] {
  const midnight = parseDate(date);
  if (midnight === null) throw new DripPlanError('bad_date');
  const wallStart = midnight + windowStart * MINUTE;
  const wallEnd = midnight + windowEnd * MINUTE;
  // Every instant of the local day lies between these (offsets are within -12h..+14h).
  const lo = midnight - 15 * HOUR;
  const hi = midnight + DAY + 15 * HOUR;
  const offset = (at: number) => offsetMinutes(new Date(at), timeZone) * MINUTE;
  const first = offset(lo);
  const last = offset(hi);
  const pieces: [number, number, number][] = [];
  if (first === last) pieces.push([lo, hi, first]);
  else {
    // The change: the first whole minute with the new offset (zones change on whole minutes).
    let a = lo;
    let b = hi;
    while (b - a > MINUTE) {
      const mid = Math.floor((a + b) / 2 / MINUTE) * MINUTE;
      if (offset(mid) === first) a = mid;
      else b = mid;
    }
    pieces.push([lo, b, first], [b, hi, offset(b)]);
  }
  const out: [number, number][] = [];
  for (const [from, to, off] of pieces) {
    const start = Math.max(from, wallStart - off);
    const end = Math.min(to, wallEnd - off);
    if (end > start) out.push([start, end]);
  }
  return out;
}

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Position (ms into the window's stretches) -> instant, floored to the minute (stays inside). */
function instantAt(intervals: [number, number][], position: number): number {
  let rest = position;
  for (const [from, to] of intervals) {
    // Clamped to the stretch's last minute: from + rest rounds in floating point (a position a hair
    // under the stretch's length could land on its end, which is outside it).
    if (rest < to - from) return Math.min(Math.floor((from + rest) / MINUTE), Math.floor((to - 1) / MINUTE)) * MINUTE;
    rest -= to - from;
  }
  const [, to] = intervals[intervals.length - 1]!;
  return Math.floor((to - 1) / MINUTE) * MINUTE;
}

/** Instant -> position in the window's stretches (for what is already on the day). */
function positionOf(intervals: [number, number][], at: number): number {
  let before = 0;
  for (const [from, to] of intervals) {
    if (at < to) return before + Math.max(0, at - from);
    before += to - from;
  }
  return before;
}

/**
 * Plans `count` publish instants, in order: from startDate on, only on the chosen weekdays, inside
 * each day's window, at most perDay a local day (counting `taken`), none before notBefore. Even
 * spread: perDay evenly spaced slots a day, the first free ones used; random: uniform in the window,
 * drawn from (seed, day). Throws DripPlanError when the rules are invalid or nothing fits.
 */
export function planDrip(input: DripPlanInput): Date[] {
  const { rules, timeZone } = input;
  if (dripRulesProblem(rules)) throw new DripPlanError('bad_rules');
  let day = parseDate(input.startDate);
  if (day === null) throw new DripPlanError('bad_date');
  if (input.count <= 0) return [];
  const notBefore = Math.ceil(input.notBefore.getTime() / MINUTE) * MINUTE;
  // Nothing can be placed on a local day before notBefore's.
  const today = parseDate(instantToZoned(new Date(notBefore), timeZone).date)!;
  if (day < today) day = today;
  const takenByDay = new Map<string, number[]>();
  for (const at of input.taken ?? []) {
    const date = instantToZoned(at, timeZone).date;
    takenByDay.set(date, [...(takenByDay.get(date) ?? []), at.getTime()]);
  }
  const weekdays = new Set(rules.weekdays);
  const out: Date[] = [];
  const maxDays = input.maxDays ?? 3660;
  for (let i = 0; i < maxDays && out.length < input.count; i++, day += DAY) {
    const date = dateOf(day);
    if (!weekdays.has(new Date(day).getUTCDay())) continue;
    const taken = takenByDay.get(date) ?? [];
    const room = Math.min(rules.perDay - taken.length, input.count - out.length);
    if (room <= 0) continue;
    const intervals = windowIntervals(date, rules.windowStart, rules.windowEnd, timeZone);
    const length = intervals.reduce((sum, [a, b]) => sum + (b - a), 0);
    if (length <= 0) continue;
    const earliest = positionOf(intervals, notBefore);
    if (earliest >= length) continue;
    const positions: number[] = [];
    if (rules.spread === 'even') {
      const slot = length / rules.perDay;
      const used = new Set(taken.map((at) => Math.min(rules.perDay - 1, Math.floor(positionOf(intervals, at) / slot))));
      for (let k = 0; k < rules.perDay && positions.length < room; k++) {
        const at = (k + 0.5) * slot;
        if (!used.has(k) && at >= earliest) positions.push(at);
      }
    } else {
      const next = seededRandom(hashString(`${input.seed}:${date}`));
      for (let k = 0; k < room; k++) positions.push(earliest + next() * (length - earliest));
      positions.sort((a, b) => a - b);
    }
    for (const p of positions) out.push(new Date(instantAt(intervals, p)));
  }
  if (out.length < input.count) throw new DripPlanError('no_capacity');
  return out;
}
