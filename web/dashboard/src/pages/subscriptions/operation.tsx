/** One subscription operation: a button (disabled with the reason the state table gives) that opens its form. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { whyNot, type Operation } from '../../subscription-rules';
import { ErrorNote, Field, inputValue, useSubmit } from '../../ui';
import type { Subscription } from './model';

/** One operation: a button (disabled with the reason) that opens its form; `run` returns the new subscription. */
export function Operation(props: {
  sub: Subscription;
  operation: Operation;
  title: string;
  tone?: 'danger';
  done: (next: Subscription, message: string) => void;
  run: () => Promise<Subscription>;
  message: string;
  children?: ComponentChildren;
  confirmText?: string;
}) {
  const [open, setOpen] = useState(false);
  const refusal = whyNot(props.sub, props.operation);
  const whyId = `why-${props.operation}`;
  const { busy, error, submit } = useSubmit(async () => {
    const next = await props.run();
    setOpen(false);
    props.done(next, props.message);
  });
  return (
    <div class="operation">
      <button
        type="button"
        class={props.tone === 'danger' ? 'danger' : 'secondary'}
        disabled={refusal !== null}
        aria-describedby={refusal ? whyId : undefined}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {props.title}
      </button>
      {refusal && (
        <p class="hint" id={whyId}>
          {refusal}
        </p>
      )}
      {open && refusal === null && (
        <form class="operation-form" onSubmit={submit} aria-label={props.title}>
          {props.children}
          <ErrorNote error={error} />
          <div class="button-row">
            <button type="submit" class={props.tone === 'danger' ? 'danger' : undefined} disabled={busy}>
              {busy ? 'Working…' : (props.confirmText ?? `Confirm: ${props.title.toLowerCase()}`)}
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Keep as is
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

export function ReasonField(props: { value: string; set: (value: string) => void; label?: string }) {
  return (
    <Field label={props.label ?? 'Reason (optional)'} hint="Kept on the subscription's history.">
      {(a) => <input {...a} maxLength={500} value={props.value} onInput={(e) => props.set(inputValue(e))} />}
    </Field>
  );
}
