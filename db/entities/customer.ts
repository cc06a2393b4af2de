import { EntitySchema } from '@mikro-orm/core';

export type DocumentType = 'cpf' | 'cnpj' | 'passport' | 'tax_id';
export const DOCUMENT_TYPES = ['cpf', 'cnpj', 'passport', 'tax_id'] as const;

export interface BillingAddress {
  line_1: string;
  line_2?: string;
  zip_code: string;
  city: string;
  state: string;
  country: string;
}

export interface Customer {
  id: string;
  merchantId: string;
  /** Always stored lowercase; unique per merchant. */
  email: string | null;
  name: string | null;
  phone: string | null;
  documentType: DocumentType | null;
  /** Envelope-encrypted document number (see domain/platform/crypto.ts); never returned. */
  documentNumberEncrypted: string | null;
  /** Accepted on write, never returned. */
  billingAddress: BillingAddress | null;
  metadata: Record<string, unknown> | null;
  /** The test clock its subscriptions run on; null: real time. */
  testClockId?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CustomerSchema = new EntitySchema<Customer>({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    email: { type: 'string', nullable: true },
    name: { type: 'string', nullable: true },
    phone: { type: 'string', nullable: true },
    documentType: { type: 'string', nullable: true },
    documentNumberEncrypted: { type: 'text', nullable: true, hidden: true },
    billingAddress: { type: 'json', nullable: true, hidden: true },
    metadata: { type: 'json', nullable: true },
    testClockId: { type: 'string', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
