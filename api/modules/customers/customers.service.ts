/** Customer rules of Document 2: one customer per email and merchant, secrets encrypted, no history on delete. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { CustomerSchema, type Customer } from '../../../db/entities';
import { customerHasHistory, customerToPresent } from '../../../db/repositories/customers.repository';
import { encryptSecret } from '../../../domain/platform/crypto';
import { newId } from '../../../domain/platform/ids';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { requireTestClockWithRoom } from '../test-clocks/test-clocks.service';
import type { CreateCustomerBody, UpdateCustomerBody } from './customers.schema';

type CreateInput = Static<typeof CreateCustomerBody>;
type UpdateInput = Static<typeof UpdateCustomerBody>;

const normalizeEmail = (email: string) => email.trim().toLowerCase();

async function findByEmail(em: EntityManager, merchantId: string, email: string): Promise<Customer | null> {
  return em.findOne(CustomerSchema, { merchantId, email: normalizeEmail(email) });
}

/**
 * A known e-mail answers with the existing customer, so a test_clock_id sent with it applies only when that customer
 * is on that clock already: otherwise 400 on `clockField`, never a clock silently dropped (its subscriptions would
 * run in real time).
 */
function existingOnClock(existing: Customer, testClockId: string | null | undefined, clockField: string): Customer {
  if (!testClockId || existing.testClockId === testClockId) return existing;
  throw errors.invalidValue(
    clockField,
    `cannot apply: customer ${existing.id} already has this e-mail and is ${existing.testClockId ? 'on another test clock' : 'not on a test clock'} (a customer's clock is set only when it is created); use a new e-mail for a customer on this clock`,
  );
}

/** Returns the existing customer (created: false) when the merchant already has one with this email. */
export async function createCustomer(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
  encryptionKey: Buffer,
  clockField = 'test_clock_id',
): Promise<{ customer: Customer; created: boolean }> {
  const existing = await findByEmail(em, merchantId, input.email);
  if (existing) return { customer: existingOnClock(existing, input.test_clock_id, clockField), created: false };
  if (input.test_clock_id) await requireTestClockWithRoom(em, merchantId, input.test_clock_id);
  try {
    // A savepoint: if a concurrent request inserted the same email first, only this insert rolls back.
    const customer = await em.transactional(async (inner) => {
      const created = inner.create(CustomerSchema, {
        id: newId('cust'),
        merchantId,
        email: normalizeEmail(input.email),
        name: input.name,
        phone: input.phone,
        documentType: input.document_type,
        documentNumberEncrypted: encryptSecret(encryptionKey, input.document_number),
        billingAddress: input.billing_address,
        metadata: input.metadata ?? null,
        testClockId: input.test_clock_id ?? null,
      } as Customer);
      await inner.flush();
      return created;
    });
    return { customer, created: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const winner = await findByEmail(em, merchantId, input.email);
    if (!winner) throw error;
    return { customer: existingOnClock(winner, input.test_clock_id, clockField), created: false };
  }
}

/** The customer to present (a plain row, not managed). */
export async function readCustomer(em: EntityManager, merchantId: string, id: string): Promise<Customer> {
  const customer = await customerToPresent(em, merchantId, id);
  if (!customer) throw errors.notFound('No such customer');
  return customer;
}

/** The customer to change (managed by `em`). */
async function getCustomer(em: EntityManager, merchantId: string, id: string): Promise<Customer> {
  const customer = await em.findOne(CustomerSchema, { id, merchantId });
  if (!customer) throw errors.notFound('No such customer');
  return customer;
}

export async function listCustomers(
  em: EntityManager,
  merchantId: string,
  filter: PageRequest & { email?: string },
): Promise<{ items: Customer[]; total: number }> {
  const where = { merchantId, ...(filter.email ? { email: normalizeEmail(filter.email) } : {}) };
  const [items, total] = await em.findAndCount(CustomerSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

function emailTaken(existingCustomerId: string) {
  return errors.conflict('CUSTOMER_EMAIL_EXISTS', 'Another customer of this merchant already uses this email', {
    existing_customer_id: existingCustomerId,
  });
}

export async function updateCustomer(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
  encryptionKey: Buffer,
): Promise<Customer> {
  const customer = await getCustomer(em, merchantId, id);
  if (input.email !== undefined) {
    const other = await findByEmail(em, merchantId, input.email);
    if (other && other.id !== customer.id) throw emailTaken(other.id);
    customer.email = normalizeEmail(input.email);
  }
  if (input.name !== undefined) customer.name = input.name;
  if (input.phone !== undefined) customer.phone = input.phone;
  if (input.document_type !== undefined) customer.documentType = input.document_type;
  if (input.document_number !== undefined)
    customer.documentNumberEncrypted = encryptSecret(encryptionKey, input.document_number);
  if (input.billing_address !== undefined) customer.billingAddress = input.billing_address;
  if (input.metadata !== undefined) customer.metadata = input.metadata;
  try {
    await em.transactional((inner) => inner.flush());
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException) || input.email === undefined) throw error;
    // Lost a race to a concurrent insert: the winner is committed, so a fresh context sees it.
    const other = await findByEmail(em.fork(), merchantId, input.email);
    if (!other) throw error;
    throw emailTaken(other.id);
  }
  return customer;
}

/**
 * Only a customer without history may go (Document 2). No area records customer history yet; the
 * orders/transactions, subscriptions and instruments areas add their checks here as they land.
 */
export async function deleteCustomer(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const customer = await getCustomer(em, merchantId, id);
  // A customer with history is kept: deleting it would fail in the database.
  if (await customerHasHistory(em, customer.id)) {
    throw errors.conflict(
      'RESOURCE_IN_USE',
      'The customer has transactions, orders, saved payment instruments, subscriptions or checkout sessions and cannot be deleted',
    );
  }
  em.remove(customer);
  await em.flush();
}
