// What applying a Stripe object did, kept on the stored event for whoever looks; and two readers of
// Stripe's values (an expandable id, a Unix time) that every part of billing uses.

export type Outcome = { outcome: 'applied' | 'ignored' | 'refused'; detail?: string };
export const applied = (detail?: string): Outcome => ({ outcome: 'applied', detail });
export const ignored = (detail: string): Outcome => ({ outcome: 'ignored', detail });
export const refused = (detail: string): Outcome => ({ outcome: 'refused', detail });

export const idOf = (v: string | { id: string } | null | undefined): string | null => (v ? (typeof v === 'string' ? v : v.id) : null);
export const fromUnix = (s: number | null | undefined): Date | null => (typeof s === 'number' && s > 0 ? new Date(s * 1000) : null);
