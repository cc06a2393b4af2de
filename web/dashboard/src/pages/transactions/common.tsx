/** What the payment and order pages share: the payment's state as people call it, the customer's name, list filters. */
import type { Item } from '../../api';
import { label } from '../../format';
import { Chip } from '../../ui';

export type Transaction = Item<'getMerchantTransactions'>;

export type Refund = Item<'getMerchantTransactionsTransactionIdRefunds'>;

/**
 * What a person calls the payment's state: the API keeps a captured payment `authorized` (its status model has no
 * "captured"), so an authorized payment with money captured reads "Captured".
 */
export function paymentStatus(tx: Pick<Transaction, 'status' | 'amount_captured'>): { status: string; text: string } {
  if (tx.status === 'authorized' && tx.amount_captured > 0) return { status: 'succeeded', text: 'Captured' };
  return { status: tx.status, text: label(tx.status) };
}

export function PaymentChip(props: { tx: Pick<Transaction, 'status' | 'amount_captured'> }) {
  const shown = paymentStatus(props.tx);
  return <Chip status={shown.status} text={shown.text} />;
}

/** Whether any list filter is set (the page number aside): an empty list then says "match", not "yet". */
export const filtered = (filters: Record<string, string>) =>
  Object.entries(filters).some(([name, value]) => name !== 'page' && value !== '');

/** A customer as people know them: name and e-mail, the id only on detail pages. */
export function CustomerName(props: {
  customer_id: string | null;
  customer_name: string | null;
  customer_email: string | null;
  withId?: boolean;
}) {
  if (!props.customer_id) return <>—</>;
  const known = props.customer_name ?? props.customer_email;
  return (
    <span class="customer">
      {known ?? <code>{props.customer_id}</code>}
      {props.customer_name && props.customer_email && <span class="meta"> {props.customer_email}</span>}
      {props.withId && known && (
        <>
          {' '}
          <code>{props.customer_id}</code>
        </>
      )}
    </span>
  );
}
