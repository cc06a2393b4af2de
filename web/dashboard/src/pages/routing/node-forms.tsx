/** The tree's edit forms: a condition (field, operator, JSON value) and adding a connector or a condition. */
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { label } from '../../format';
import { useProviderName } from '../../providers';
import { ErrorNote, Field, inputValue, useSubmit } from '../../ui';
import { type RoutingNode, showValue, type TreeContext } from './model';

const FIELDS = ['amount', 'currency', 'card_brand', 'bin_country', 'installments', 'is_recurring', 'math/random'];

export const OPERATORS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  not_in: 'is none of',
  regex: 'matches the pattern',
};

const FIELD_HINTS: Record<string, string> = {
  amount: 'A number in minor units: 10000 is R$100.00.',
  currency: 'A code in quotes, "BRL"; for "is one of": ["BRL", "USD"].',
  card_brand: 'Lowercase in quotes, "visa"; for "is one of": ["visa", "mastercard"].',
  bin_country: 'The card’s country, "BR"; for "is one of": ["BR", "AR"].',
  installments: 'A number, 1 to 120.',
  is_recurring: 'true or false.',
  'math/random': 'A share from 0 to 1: "< 0.1" sends 10% of charges to the then-branch.',
};

interface Condition {
  condition_field: string;
  condition_operator: string;
  condition_value: unknown;
}

/** Field and operator by name; the value as JSON, checked as it is typed (the API's own check shows on save). */
export function ConditionForm(props: {
  initial?: RoutingNode;
  submitText: string;
  save: (condition: Condition) => Promise<void>;
}) {
  const [field, setField] = useState<string>(props.initial?.condition_field ?? 'amount');
  const [operator, setOperator] = useState<string>(props.initial?.condition_operator ?? 'gte');
  const [text, setText] = useState(props.initial ? showValue(props.initial.condition_value) : '10000');
  let parsed: { ok: true; value: unknown } | { ok: false; message: string };
  try {
    parsed = { ok: true, value: JSON.parse(text) };
  } catch (failure) {
    parsed = { ok: false, message: (failure as Error).message };
  }
  const { busy, error, submit } = useSubmit(async () => {
    if (!parsed.ok) return;
    await props.save({ condition_field: field, condition_operator: operator, condition_value: parsed.value });
  });
  return (
    <form onSubmit={submit} class="narrow" aria-label="Condition">
      <Field label="When the charge’s">
        {(a) => (
          <select {...a} value={field} onChange={(e) => setField(inputValue(e))}>
            {FIELDS.map((f) => (
              <option key={f} value={f}>
                {label(f)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Comparison">
        {(a) => (
          <select {...a} value={operator} onChange={(e) => setOperator(inputValue(e))}>
            {Object.entries(OPERATORS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Value (JSON)" hint={FIELD_HINTS[field]}>
        {(a) => (
          <textarea
            {...a}
            class="json"
            rows={2}
            aria-invalid={!parsed.ok}
            value={text}
            onInput={(e) => setText(inputValue(e))}
          />
        )}
      </Field>
      {!parsed.ok && (
        <p class="notice error" role="alert">
          Not valid JSON: {parsed.message}
        </p>
      )}
      <ErrorNote error={error} />
      <button type="submit" class="small" disabled={busy || !parsed.ok}>
        {busy ? 'Saving…' : props.submitText}
      </button>
    </form>
  );
}

/** Add a connector (the usual case) or a condition at the end of one sibling list. */
export function AddNode(props: {
  tree: TreeContext;
  parent: RoutingNode | null;
  branch: 'then' | 'else' | null;
  position: number;
  where: string;
}) {
  const { tree } = props;
  const providerName = useProviderName();
  const [connector, setConnector] = useState(tree.connectors[0]?.id ?? '');
  const [conditionOpen, setConditionOpen] = useState(false);
  const place = { position: props.position, parent_node_id: props.parent?.id ?? null, branch: props.branch };
  const add = useSubmit(async () => {
    await call('POST', `${tree.base}/nodes`, { node_type: 'action', merchant_connector_id: connector, ...place });
    tree.changed(`${tree.connectors.find((c) => c.id === connector)?.name ?? 'Connector'} added.`);
  });
  return (
    <div class="add-node">
      <form onSubmit={add.submit} class="button-row" aria-label={`Add a connector, ${props.where}`}>
        <label class="visually-hidden" for={`add-${props.parent?.id ?? 'root'}-${props.branch ?? ''}`}>
          Connector to add, {props.where}
        </label>
        <select
          id={`add-${props.parent?.id ?? 'root'}-${props.branch ?? ''}`}
          value={connector}
          onChange={(e) => setConnector(inputValue(e))}
        >
          {tree.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({providerName(c.provider_slug)})
            </option>
          ))}
        </select>
        <button type="submit" class="secondary small" disabled={add.busy || !connector}>
          Add connector
        </button>
        <button type="button" class="secondary small" onClick={() => setConditionOpen(!conditionOpen)}>
          {conditionOpen ? 'Close' : 'Add condition'}
        </button>
      </form>
      <ErrorNote error={add.error} />
      {conditionOpen && (
        <ConditionForm
          submitText="Add condition"
          save={(condition) =>
            call('POST', `${tree.base}/nodes`, { node_type: 'condition', ...condition, ...place }).then(() => {
              setConditionOpen(false);
              tree.changed('Condition added: add connectors to its branches.');
            })
          }
        />
      )}
    </div>
  );
}
