import { EntitySchema } from '@mikro-orm/core';

export type TestClockStatus = 'ready' | 'advancing';

/** A merchant's simulated time: its customers' subscriptions run on frozen_time, not real time. */
export interface TestClock {
  id: string;
  merchantId: string;
  name: string | null;
  /** The clock's time: where the last advance moved it (the subscriptions reach it while `advancing`). */
  frozenTime: Date;
  /** frozen_time when the clock was created: the clock never moves more than its stated span past it. */
  startTime: Date;
  status: TestClockStatus;
  createdAt: Date;
  updatedAt: Date;
  /** Set by DELETE: the clock ended (its subscriptions were cancelled); its customers keep their history. */
  deletedAt: Date | null;
}

export const TestClockSchema = new EntitySchema<TestClock>({
  name: 'TestClock',
  tableName: 'test_clocks',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    name: { type: 'string', nullable: true },
    frozenTime: { type: 'Date', columnType: 'timestamptz(3)' },
    startTime: { type: 'Date', columnType: 'timestamptz(3)' },
    status: { type: 'string' },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date(), onUpdate: () => new Date() },
    deletedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
