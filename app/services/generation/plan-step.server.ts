import type { Db } from '../../../db/client';
import type { CallGate } from '~/utils/call-gate';
import type { Plan } from '~/utils/plan-schema';
import { runPlan, writeFromPlan } from './plan-writing.server';
import type { Output } from './output.server';
import type { ClaimedItem, ItemRow, KeyLookup } from './item.server';

// Which step of a plan-first item a delivery does: make its plan (the item then waits `planned`),
// or write the post from the plan its owner approved (booked like any other post).

export type PlanOutput = { plan: Plan };

export async function runPlanFirst(
  item: ClaimedItem,
  row: ItemRow,
  state: { phase: 'plan' | 'write'; plan: Plan | null } | null,
  keyOf: KeyLookup,
  answered: () => Promise<void>,
  calls: CallGate | undefined,
  db: Db,
): Promise<Output | PlanOutput> {
  if (state?.phase === 'write' && state.plan) return writeFromPlan(item, row, state.plan, keyOf, answered, calls, db);
  const plan = await runPlan(item, row, keyOf);
  await answered();
  return { plan };
}
