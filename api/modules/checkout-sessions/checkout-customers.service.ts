/**
 * Finding the buyer of a checkout: an existing customer by id, an inline customer resolved by email (the
 * customers area's own create, which returns the existing customer for a known email), or an email alone.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { CustomerSchema, type Customer } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import { createCustomer } from '../customers/customers.service';
import type { InlineCustomer } from './checkout-sessions.schema';

export type InlineCustomerInput = Static<typeof InlineCustomer>;

/** A customer referenced in a body must be the merchant's; another merchant's id is a 400, never its data. */
export async function requireCustomer(
  em: EntityManager,
  merchantId: string,
  customerId: string,
  field = 'customer_id',
): Promise<Customer> {
  const customer = await em.findOne(CustomerSchema, { id: customerId, merchantId });
  if (!customer) throw errors.invalidValue(field, 'must name a customer of this merchant');
  return customer;
}

export async function resolveInlineCustomer(
  em: EntityManager,
  merchantId: string,
  input: InlineCustomerInput,
  encryptionKey: Buffer,
): Promise<Customer> {
  return (await createCustomer(em, merchantId, input, encryptionKey, 'customer.test_clock_id')).customer;
}

const findByEmail = (em: EntityManager, merchantId: string, email: string) =>
  em.findOne(CustomerSchema, { merchantId, email: email.trim().toLowerCase() });

/**
 * identify with an email alone: the merchant's customer with that email, or a new one holding only the email
 * and name (the rest is filled in later through PATCH /customers/:id).
 */
export async function findOrCreateCustomerByEmail(
  em: EntityManager,
  merchantId: string,
  email: string,
  name: string | undefined,
): Promise<Customer> {
  const existing = await findByEmail(em, merchantId, email);
  if (existing) return existing;
  try {
    // A savepoint, so losing a race to a concurrent insert of the same email only undoes this insert.
    return await em.transactional(async (inner) => {
      const customer = inner.create(CustomerSchema, {
        id: newId('cust'),
        merchantId,
        email: email.trim().toLowerCase(),
        name: name ?? null,
        phone: null,
        documentType: null,
        documentNumberEncrypted: null,
        billingAddress: null,
        metadata: null,
      } as Customer);
      await inner.flush();
      return customer;
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const winner = await findByEmail(em, merchantId, email);
    if (!winner) throw error;
    return winner;
  }
}
