/**
 * The Overview's setup checklist: a merchant takes no payment until a connector and a routing profile are active,
 * and hears of none until a webhook endpoint is; each step links to the page that does it. Shown until all hold.
 */
import type { Answer } from '../api';
import { Link } from '../ui';

type Setup = Answer<'getMerchantOverview'>['setup'];

const STEPS: { key: keyof Setup; title: string; to: string; why: string }[] = [
  {
    key: 'connector',
    title: 'Add a connector',
    to: '/connectors/new',
    why: 'the provider account that takes payments',
  },
  {
    key: 'routing',
    title: 'Turn on a routing profile',
    to: '/routing',
    why: 'without one, a charge is refused with ROUTING_NOT_CONFIGURED',
  },
  { key: 'webhook', title: 'Add a webhook endpoint', to: '/webhooks', why: 'so your server hears of each payment' },
];

export function SetupChecklist(props: { setup: Setup }) {
  const done = STEPS.filter((step) => props.setup[step.key]).length;
  if (done === STEPS.length) return null;
  return (
    <section class="chart-card setup-checklist" aria-labelledby="setup-title">
      <h2 id="setup-title">
        Set up payments ({done} of {STEPS.length} done)
      </h2>
      <ol>
        {STEPS.map((step) => (
          <li key={step.key} class={props.setup[step.key] ? 'done' : ''}>
            {props.setup[step.key] ? (
              <>
                <span aria-hidden="true">✓ </span>
                {step.title} <span class="visually-hidden">(done)</span>
              </>
            ) : (
              <>
                <Link to={step.to}>{step.title}</Link>: {step.why}
              </>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
