import { describe, expect, it } from 'vitest';
import { CpuTurns } from '../../jobs/generation-timing';

// The generation loop's turns for answered items' CPU work, and their pause while a claim is out.

const immediate = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function takeMany(cpu: CpuTurns, n: number, ran: number[]) {
  for (let i = 0; i < n; i++) void cpu.take().then(() => ran.push(i));
}

describe('CpuTurns', () => {
  it('gives one turn per event-loop iteration, in order', async () => {
    const cpu = new CpuTurns();
    const ran: number[] = [];
    takeMany(cpu, 3, ran);
    await immediate();
    expect(ran.length).toBeLessThanOrEqual(1);
    for (let i = 0; i < 5; i++) await immediate();
    expect(ran).toEqual([0, 1, 2]);
  });

  it('gives no turn while paused, and the waiting ones after the resume', async () => {
    const cpu = new CpuTurns();
    const ran: number[] = [];
    const resume = cpu.pause();
    takeMany(cpu, 2, ran);
    for (let i = 0; i < 5; i++) await immediate();
    expect(ran).toEqual([]);
    resume();
    resume(); // twice is once
    for (let i = 0; i < 5; i++) await immediate();
    expect(ran).toEqual([0, 1]);
  });

  it('a turn taken mid-queue waits for a pause that began meanwhile', async () => {
    const cpu = new CpuTurns();
    const ran: number[] = [];
    takeMany(cpu, 3, ran);
    await immediate();
    const resume = cpu.pause();
    const before = ran.length;
    for (let i = 0; i < 5; i++) await immediate();
    expect(ran.length).toBe(before);
    resume();
    for (let i = 0; i < 5; i++) await immediate();
    expect(ran).toEqual([0, 1, 2]);
  });

  it('a pause never resumed ends by itself (a claim stuck in an outage does not hold the bookings)', async () => {
    const cpu = new CpuTurns();
    const ran: number[] = [];
    cpu.pause();
    takeMany(cpu, 1, ran);
    await sleep(20);
    expect(ran).toEqual([]);
    await sleep(150);
    expect(ran).toEqual([0]);
  });
});
