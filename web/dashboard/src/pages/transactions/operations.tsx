/** A payment's money actions (capture, void, refund), each asking for its confirmation with the amount. */
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { money, toMinor } from '../../format';
import { ErrorNote, Field, Notice, inputValue } from '../../ui';
import { CAPTURABLE, REFUNDABLE, VOIDABLE } from '../../transaction-rules';
import { type Transaction, type Refund, paymentStatus } from './common';

/** A money action waiting for its confirmation: what runs, and the sentence with the amount that asks for it. */
interface PendingAction {
  kind: 'capture' | 'void' | 'refund';
  question: string;
  confirm: string;
  refund?: { amount?: number; reason?: string };
}

export function Operations(props: {
  tx: Transaction;
  refunded: number;
  changed: (tx: Transaction) => void;
  refundsChanged: () => void;
}) {
  const { tx } = props;
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<{ tone: 'success' | 'info'; text: string } | null>(null);
  const [asked, setAsked] = useState<PendingAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const canCapture = CAPTURABLE.includes(tx.status);
  const canVoid = VOIDABLE.includes(tx.status);
  const refundable = tx.amount_captured - props.refunded;
  const canRefund = REFUNDABLE.includes(tx.status) && refundable > 0;
  const held = money(tx.amount_authorized, tx.currency);

  const ask = (action: PendingAction) => {
    setError(null);
    setDone(null);
    setAsked(action);
  };
  const askRefund = (event: Event) => {
    event.preventDefault();
    const minor = amount.trim() ? toMinor(amount, tx.currency) : undefined;
    if (minor !== undefined && !(minor > 0)) {
      setError(new Error('Type a positive amount, or leave it empty for the whole balance.'));
      return;
    }
    if (minor !== undefined && minor > refundable) {
      setError(new Error(`At most ${money(refundable, tx.currency)} can be refunded.`));
      return;
    }
    const shown = money(minor ?? refundable, tx.currency);
    ask({
      kind: 'refund',
      question: `Refund ${shown} to the customer? This cannot be undone.`,
      confirm: `Refund ${shown}`,
      refund: { amount: minor, reason: reason.trim() || undefined },
    });
  };

  const run = async (action: PendingAction) => {
    if (action.kind !== 'refund') {
      const next = await call<Transaction>('POST', `/merchant/transactions/${tx.id}/${action.kind}`, {});
      props.changed(next);
      return action.kind === 'capture'
        ? { tone: 'success' as const, text: `Captured ${money(next.amount_captured, next.currency)}.` }
        : { tone: 'success' as const, text: `Voided: the hold of ${held} is released.` };
    }
    const refund = await call<Refund>('POST', `/merchant/transactions/${tx.id}/refunds`, {
      ...(action.refund?.amount ? { amount: action.refund.amount } : {}),
      ...(action.refund?.reason ? { reason: action.refund.reason } : {}),
    });
    setAmount('');
    setReason('');
    props.refundsChanged();
    props.changed(await call<Transaction>('GET', `/merchant/transactions/${tx.id}`));
    const shown = money(refund.amount, refund.currency);
    if (refund.status === 'failed')
      throw new Error(
        `The refund of ${shown} failed${refund.error_code ? ` (${refund.error_code})` : ''}; nothing was returned to the customer.`,
      );
    return refund.status === 'succeeded'
      ? { tone: 'success' as const, text: `Refunded ${shown}.` }
      : { tone: 'info' as const, text: `Refund of ${shown} requested; the provider has not confirmed it yet.` };
  };
  const confirm = () => {
    if (!asked) return;
    setBusy(true);
    setError(null);
    run(asked).then(
      (result) => {
        setBusy(false);
        setAsked(null);
        setDone(result);
      },
      (failure: unknown) => {
        setBusy(false);
        setAsked(null);
        setError(failure);
      },
    );
  };

  return (
    <section aria-labelledby="operations">
      <h2 id="operations">Actions</h2>
      {done && <Notice tone={done.tone}>{done.text}</Notice>}
      <div class="button-row">
        <button
          type="button"
          disabled={!canCapture || busy}
          aria-describedby="capture-why"
          onClick={() =>
            ask({
              kind: 'capture',
              question: `Capture ${held}? The customer's card is charged this amount.`,
              confirm: `Capture ${held}`,
            })
          }
        >
          Capture
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!canVoid || busy}
          aria-describedby="capture-why"
          onClick={() =>
            ask({
              kind: 'void',
              question: `Void this payment and release the hold of ${held}? It cannot be captured afterwards.`,
              confirm: `Void ${held}`,
            })
          }
        >
          Void
        </button>
      </div>
      <p class="hint" id="capture-why">
        {canCapture
          ? 'The payment is authorized but not captured: capture takes the money, void releases the hold.'
          : `Capture and void apply only to pre-authorized payments; this one is ${paymentStatus(tx).text.toLowerCase()}.`}
      </p>
      {asked && (
        <div class="confirm" role="group" aria-label={asked.confirm}>
          <p>{asked.question}</p>
          <div class="button-row">
            <button
              type="button"
              class={asked.kind === 'capture' ? undefined : 'danger'}
              disabled={busy}
              onClick={confirm}
            >
              {busy ? 'Working…' : asked.confirm}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setAsked(null)}>
              Keep as is
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
      <form onSubmit={askRefund} class="inline-form">
        <Field label={`Refund amount (${tx.currency})`} hint="Empty: the whole refundable balance.">
          {(a) => (
            <input
              {...a}
              inputMode="decimal"
              value={amount}
              disabled={!canRefund}
              onInput={(e) => setAmount(inputValue(e))}
            />
          )}
        </Field>
        <Field label="Reason (optional)">
          {(a) => (
            <input
              {...a}
              value={reason}
              disabled={!canRefund}
              maxLength={500}
              onInput={(e) => setReason(inputValue(e))}
            />
          )}
        </Field>
        <button type="submit" disabled={!canRefund || busy} aria-describedby="refund-why">
          Refund
        </button>
        <p class="hint" id="refund-why">
          {canRefund
            ? `Refundable: ${money(refundable, tx.currency)}.`
            : 'Only captured payments with a balance left can be refunded.'}
        </p>
      </form>
    </section>
  );
}
