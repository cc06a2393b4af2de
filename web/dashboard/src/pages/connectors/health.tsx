/** A connector's health: the circuit breaker's state as a chip, and the recent approval rate. */
import { Chip } from '../../ui';
import type { Connector } from './model';

type Health = Connector['health'];

const CIRCUIT_TEXT: Record<Health['state'], string> = {
  closed: 'Healthy',
  open: 'Circuit open',
  half_open: 'Probing',
};

/** The circuit's state as a chip: closed is good, open is a failure, half-open is being probed. */
export function CircuitChip(props: { health: Health | undefined }) {
  const state = props.health?.state ?? 'closed';
  const tone = state === 'closed' ? 'active' : state === 'open' ? 'failed' : 'pending';
  return <Chip status={tone} text={CIRCUIT_TEXT[state]} />;
}

export const rate = (health: Health | undefined) =>
  health?.window.approval_rate == null ? '—' : `${Math.round(health.window.approval_rate * 100)}%`;
