import { EntitySchema } from '@mikro-orm/core';

export interface Organization {
  id: string;
  name: string;
  /** In production, test-mode connectors can be created only while this is on (an owner's switch). */
  testConnectorsEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const OrganizationSchema = new EntitySchema<Organization>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { type: 'string', primary: true },
    name: { type: 'string' },
    testConnectorsEnabled: { type: 'boolean', default: false },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
