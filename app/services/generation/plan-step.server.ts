import type { Db } from '../../../db/client';
import type { CallGate } from '~/utils/call-gate';
import type { Plan } from '~/utils/plan-schema';
import type { ResearchSource } from '~/utils/research-sources';
import { runPlan, writeFromPlan } from './plan-writing.server';
import { researchTopic, type Research } from './research.server';
import type { Output } from './output.server';
import type { ClaimedItem, ItemRow, KeyLookup } from './item.server';

// Which step of a plan-first item a delivery does: make its plan, researched first when a search
// API is configured (the item then waits `planned`), or write the post from the plan its owner
// approved and its sources (booked like any other post).

export type PlanOutput = { plan: Plan; research: Research | null };

export async function runPlanFirst(
  item: ClaimedItem,
  row: ItemRow,
  state: { phase: 'plan' | 'write'; plan: Plan | null; sources: ResearchSource[] } | null,
  keyOf: KeyLookup,
  answered: () => Promise<void>,
  calls: CallGate | undefined,
  db: Db,
): Promise<Output | PlanOutput> {
  if (state?.phase === 'write' && state.plan) return writeFromPlan(item, row, state.plan, state.sources, keyOf, answered, calls, db);
  const research = await researchTopic(row.prompt);
  const plan = await runPlan(item, row, keyOf, research?.findings);
  await answered();
  return { plan, research };
}
