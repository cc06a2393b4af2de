/** One delivery in the list: redeliver it, and what was sent and what came back. */
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { when } from '../../format';
import { ErrorNote } from '../../ui';
import type { Delivery } from './model';

export function Redeliver(props: { delivery: Delivery; active: boolean; sent: () => void }) {
  const [state, setState] = useState<'idle' | 'busy' | 'sent'>('idle');
  const [error, setError] = useState<unknown>(null);
  const send = () => {
    setState('busy');
    setError(null);
    call('POST', `/merchant/webhook-configs/${props.delivery.merchant_webhook_config_id}/redeliver`, {
      event_id: props.delivery.event_id,
    }).then(
      () => {
        setState('sent');
        props.sent();
      },
      (failure: unknown) => {
        setState('idle');
        setError(failure);
      },
    );
  };
  if (state === 'sent') return <span role="status">Queued</span>;
  return (
    <>
      <button
        type="button"
        class="secondary small"
        disabled={!props.active || state === 'busy'}
        title={props.active ? undefined : 'The endpoint is disabled'}
        aria-label={`Redeliver ${props.delivery.event_type}`}
        onClick={send}
      >
        Redeliver
      </button>
      <ErrorNote error={error} />
    </>
  );
}

/** What was sent and what came back, on demand (payloads are long). */
export function DeliveryDetails(props: { delivery: Delivery }) {
  const d = props.delivery;
  return (
    <details class="delivery-details">
      <summary>Payload and response</summary>
      <p class="meta">
        {d.http_status_code ? `HTTP ${d.http_status_code}` : (d.error ?? 'No answer')}
        {d.duration_ms !== null && ` · ${d.duration_ms} ms`}
        {d.next_retry_at && ` · next try ${when(d.next_retry_at)}`}
      </p>
      <p class="meta">Sent</p>
      {/* Focusable: a long payload scrolls, and the keyboard must reach it. */}
      <pre tabIndex={0} aria-label="Payload sent">
        {JSON.stringify(d.payload, null, 2)}
      </pre>
      <p class="meta">Response body</p>
      <pre tabIndex={0} aria-label="Response body">
        {d.response_body || '(empty)'}
      </pre>
    </details>
  );
}
