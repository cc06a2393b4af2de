import { EntitySchema } from '@mikro-orm/core';

export type MerchantStatus = 'active' | 'inactive' | 'suspended';

export interface MerchantAddress {
  line_1: string;
  line_2?: string | null;
  zip_code: string;
  city: string;
  state: string;
  country: string;
}

export interface Merchant {
  id: string;
  organizationId: string;
  name: string;
  slug: string;
  externalReference: string | null;
  businessRegistrationNumber: string | null;
  mcc: string | null;
  phoneNumber: string | null;
  address: MerchantAddress | null;
  website: string | null;
  status: MerchantStatus;
  /** Once enrolled with the card networks, name, website, mcc and address are locked. */
  networkEnrolled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantSchema = new EntitySchema<Merchant>({
  name: 'Merchant',
  tableName: 'merchants',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    externalReference: { type: 'string', nullable: true },
    businessRegistrationNumber: { type: 'string', nullable: true },
    mcc: { type: 'string', nullable: true },
    phoneNumber: { type: 'string', nullable: true },
    address: { type: 'json', nullable: true },
    website: { type: 'string', nullable: true },
    status: { type: 'string', default: 'active' },
    networkEnrolled: { type: 'boolean', default: false },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
