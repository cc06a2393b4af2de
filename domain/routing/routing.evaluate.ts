/**
 * The routing engine: one pure function from (program, connector states, charge) to an ordered attempt plan.
 * No I/O, no clock, no randomness — the random draw is an input, so the charge workflow (which draws it
 * deterministically) and the simulate endpoint get the same plan for the same input.
 *
 * Plan = the first action the rules reach (reason 'matched'), then every other action node in evaluation
 * order (reason 'fallback'), then the profile's default connector (reason 'default'). Connectors that are
 * inactive, whose circuit is open, or that can't take the charge's payment method / currency / card brand are
 * skipped (each with its reason), and no connector appears twice.
 *
 * A plan never mixes live and test: the charge's mode is fixed before any connector is chosen (chargeModeOf) and
 * connectors of the other mode are skipped as test_mode_mismatch, so a live charge can never cascade onto a
 * test-mode connector (which approves without collecting money), nor a test charge onto a live one.
 */

export type ConditionField =
  'currency' | 'amount' | 'card_brand' | 'bin_country' | 'is_recurring' | 'math/random' | 'installments';
export type ConditionOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'not_in' | 'regex';
export type Require3ds = 'never' | 'if_supported' | 'always';
/** A concrete charge method (a profile's `*` is not a charge method). */
export type TransactionPaymentMethod = 'credit_card' | 'debit_card' | 'pix' | 'boleto' | 'wallet';

export interface ConditionNode {
  kind: 'condition';
  id: string;
  isActive: boolean;
  field: ConditionField;
  operator: ConditionOperator;
  value: unknown;
  then: ProgramNode[];
  else: ProgramNode[];
}

export interface ActionNode {
  kind: 'action';
  id: string;
  isActive: boolean;
  connectorId: string;
  require3ds: Require3ds;
}

export type ProgramNode = ConditionNode | ActionNode;

export interface RoutingProgram {
  /** Root nodes by position; each condition's branches by position. */
  nodes: ProgramNode[];
  defaultConnectorId: string;
}

export interface ConnectorState {
  isActive: boolean;
  /** A test-mode connector (is_test_mode): its calls go to the sandbox and never move money. */
  isTestMode: boolean;
  providerSlug: string;
  /** config.card_brands narrowed to the provider's brands when set, else the provider's brands (lowercase). */
  cardBrands: readonly string[];
  /** The provider's methods: card, pix, boleto, wallet. */
  paymentMethods: readonly string[];
  /** ISO 4217, uppercase. */
  currencies: readonly string[];
  /**
   * The circuit breaker's gate: open → skipped (circuit_open); probe_due → planned as the circuit's
   * one half-open probe (the planner must claim it); closed or absent → usable.
   */
  circuit?: 'closed' | 'open' | 'probe_due';
  /** Its provider's adapter runs 3-D Secure (supportsThreeDs in domain/connectors/registry.ts); absent: it does not. */
  supportsThreeDs?: boolean;
}

export interface ChargeAttributes {
  paymentMethod: TransactionPaymentMethod;
  currency: string;
  amount: number;
  cardBrand?: string | null;
  binCountry?: string | null;
  isRecurring: boolean;
  /**
   * A subscription's renewal on its saved card: the customer agreed to it and is not there, so it is exempt from
   * 3-D Secure whatever the node says. Absent: customer-initiated (a saved card the merchant's server charges too).
   */
  merchantInitiated?: boolean;
  installments: number;
  /** Uniform in [0, 1); compared with math/random conditions. */
  randomDraw: number;
  /**
   * The charge's mode when something other than the plan fixes it: `test` for a customer on a test clock. Absent:
   * the plan's first connector decides (chargeModeOf).
   */
  mode?: ChargeMode;
}

export type ChargeMode = 'live' | 'test';

export type AttemptReason = 'matched' | 'fallback' | 'default';

export interface Attempt {
  connectorId: string;
  /** The action node that produced the attempt; null for the profile's default connector. */
  nodeId: string | null;
  require3ds: Require3ds;
  reason: AttemptReason;
  /** Set when the attempt would probe an open circuit whose cool-down passed (the planner claims it or drops it). */
  probe?: true;
  /** Set when the charge asks this connector's provider to authenticate the card (3-D Secure). */
  threeDs?: true;
}

export type SkipReason =
  | 'unknown_connector'
  | 'inactive'
  | 'circuit_open'
  | 'test_mode_mismatch'
  | 'unsupported_payment_method'
  | 'unsupported_currency'
  | 'unsupported_card_brand'
  | 'three_ds_unsupported';

export interface SkippedConnector {
  connectorId: string;
  nodeId: string | null;
  reason: SkipReason;
}

export interface RoutingPlan {
  /** Ordered; the charge tries them in turn while declines are retryable. May be empty. */
  attempts: Attempt[];
  /** Every attempt's connector is of this mode (null: no connector can take the charge, nothing decided it). */
  mode: ChargeMode | null;
  /** The action node the rules selected (even when its connector had to be skipped); null when none matched. */
  matchedNodeId: string | null;
  /** Connectors left out for eligibility, in the order they were considered (for simulate and support). */
  skipped: SkippedConnector[];
}

/** The provider-side method a charge method needs. */
export function providerMethodOf(method: TransactionPaymentMethod): string {
  return method === 'credit_card' || method === 'debit_card' ? 'card' : method;
}

/** Pre-order: a node, then its then-branch subtree, then its else-branch subtree; siblings by position. */
export function* walk(nodes: readonly ProgramNode[]): Generator<ProgramNode> {
  for (const node of nodes) {
    yield node;
    if (node.kind === 'condition') {
      yield* walk(node.then);
      yield* walk(node.else);
    }
  }
}

/** Active action nodes in evaluation order; an inactive condition disables its whole subtree. */
function* activeActions(nodes: readonly ProgramNode[]): Generator<ActionNode> {
  for (const node of nodes) {
    if (!node.isActive) continue;
    if (node.kind === 'action') yield node;
    else {
      yield* activeActions(node.then);
      yield* activeActions(node.else);
    }
  }
}

/** The first active action the rules reach: a condition enters one branch; nothing there → the next sibling. */
function firstMatch(nodes: readonly ProgramNode[], charge: NormalizedCharge): ActionNode | null {
  for (const node of nodes) {
    if (!node.isActive) continue;
    if (node.kind === 'action') return node;
    const found = firstMatch(holds(node, charge) ? node.then : node.else, charge);
    if (found) return found;
  }
  return null;
}

interface NormalizedCharge extends ChargeAttributes {
  cardBrand: string | null;
  binCountry: string | null;
}

function normalize(charge: ChargeAttributes): NormalizedCharge {
  return {
    ...charge,
    currency: charge.currency.toUpperCase(),
    cardBrand: charge.cardBrand ? charge.cardBrand.toLowerCase() : null,
    binCountry: charge.binCountry ? charge.binCountry.toUpperCase() : null,
  };
}

/** The charge's value for a field; null when the charge doesn't carry it (card_brand on a pix charge). */
function fieldValue(field: ConditionField, charge: NormalizedCharge): string | number | boolean | null {
  switch (field) {
    case 'currency':
      return charge.currency;
    case 'amount':
      return charge.amount;
    case 'installments':
      return charge.installments;
    case 'card_brand':
      return charge.cardBrand;
    case 'bin_country':
      return charge.binCountry;
    case 'is_recurring':
      return charge.isRecurring;
    case 'math/random':
      return charge.randomDraw;
  }
}

// Compiled once per source; sources are validated (length-bounded, no catastrophic shapes) before storage.
const regexCache = new Map<string, RegExp | null>();
function compiled(source: string): RegExp | null {
  if (!regexCache.has(source)) {
    let regex: RegExp | null;
    try {
      regex = new RegExp(source);
    } catch {
      regex = null;
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(source, regex);
  }
  return regexCache.get(source) ?? null;
}

/**
 * Whether a condition holds. A condition on an attribute the charge doesn't carry is false (so the else
 * branch applies), as is any stored combination the engine can't interpret — never an exception.
 */
export function conditionHolds(
  node: Pick<ConditionNode, 'field' | 'operator' | 'value'>,
  charge: ChargeAttributes,
): boolean {
  return holds(node, normalize(charge));
}

function holds(node: Pick<ConditionNode, 'field' | 'operator' | 'value'>, charge: NormalizedCharge): boolean {
  const actual = fieldValue(node.field, charge);
  if (actual === null) return false;
  const expected = node.value;
  switch (node.operator) {
    case 'eq':
      return actual === expected;
    case 'neq':
      return typeof expected === typeof actual && actual !== expected;
    case 'in':
      return Array.isArray(expected) && expected.includes(actual);
    case 'not_in':
      return Array.isArray(expected) && !expected.includes(actual);
    case 'gt':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'gte':
      return typeof actual === 'number' && typeof expected === 'number' && actual >= expected;
    case 'lt':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'lte':
      return typeof actual === 'number' && typeof expected === 'number' && actual <= expected;
    case 'regex': {
      if (typeof actual !== 'string' || typeof expected !== 'string') return false;
      return compiled(expected)?.test(actual) ?? false;
    }
    default:
      return false;
  }
}

/** Why a connector can't take this charge, or null when it can. An unknown card brand narrows nothing. */
export function ineligibility(connector: ConnectorState | undefined, charge: ChargeAttributes): SkipReason | null {
  if (!connector) return 'unknown_connector';
  if (!connector.isActive) return 'inactive';
  if (connector.circuit === 'open') return 'circuit_open';
  const method = providerMethodOf(charge.paymentMethod);
  if (!connector.paymentMethods.includes(method)) return 'unsupported_payment_method';
  if (!connector.currencies.includes(charge.currency.toUpperCase())) return 'unsupported_currency';
  if (method === 'card' && charge.cardBrand && !connector.cardBrands.includes(charge.cardBrand.toLowerCase())) {
    return 'unsupported_card_brand';
  }
  return null;
}

const modeOf = (connector: ConnectorState): ChargeMode => (connector.isTestMode ? 'test' : 'live');

/**
 * The charge's mode: the one fixed up front (a test clock's customer: test), else the mode of the first connector
 * in plan order that the merchant set up to take this charge. An open circuit does not count as "not set up": the
 * mode follows the merchant's configuration, never a connector's momentary health, so a live connector whose
 * circuit is open makes the charge live (and fail when no other live connector is left) rather than hand it to a
 * test-mode connector that would approve it without collecting money.
 */
function chargeModeOf(
  candidates: ReadonlyArray<Pick<Attempt, 'connectorId'>>,
  connectors: ReadonlyMap<string, ConnectorState>,
  charge: NormalizedCharge,
): ChargeMode | null {
  if (charge.mode) return charge.mode;
  for (const { connectorId } of candidates) {
    const connector = connectors.get(connectorId);
    const why = ineligibility(connector, charge);
    if (connector && (why === null || why === 'circuit_open')) return modeOf(connector);
  }
  return null;
}

const attemptOf = (action: ActionNode, reason: AttemptReason): Attempt => ({
  connectorId: action.connectorId,
  nodeId: action.id,
  require3ds: action.require3ds,
  reason,
});

/**
 * Whether the charge authenticates on this connector, or why it cannot take the charge. Only a card charge the buyer
 * makes is authenticated: a merchant-initiated one (a renewal on a saved card) is exempt, whatever the node says.
 * `always` needs a provider that runs 3-D Secure (else three_ds_unsupported); `if_supported` asks where it can;
 * `never` asks nothing (an issuer that demands it is still answered with a challenge).
 */
function threeDsOf(
  require3ds: Require3ds,
  connector: ConnectorState,
  charge: NormalizedCharge,
): boolean | 'three_ds_unsupported' {
  if (require3ds === 'never' || providerMethodOf(charge.paymentMethod) !== 'card' || charge.merchantInitiated)
    return false;
  if (connector.supportsThreeDs) return true;
  return require3ds === 'always' ? 'three_ds_unsupported' : false;
}

export function evaluate(
  program: RoutingProgram,
  connectors: ReadonlyMap<string, ConnectorState>,
  charge: ChargeAttributes,
): RoutingPlan {
  const normalized = normalize(charge);
  const matched = firstMatch(program.nodes, normalized);
  // Every connector the plan names, in plan order (a connector may be named twice; it is planned once).
  const candidates: Attempt[] = [];
  if (matched) candidates.push(attemptOf(matched, 'matched'));
  for (const action of activeActions(program.nodes)) {
    if (action !== matched) candidates.push(attemptOf(action, 'fallback'));
  }
  candidates.push({ connectorId: program.defaultConnectorId, nodeId: null, require3ds: 'never', reason: 'default' });
  const mode = chargeModeOf(candidates, connectors, normalized);
  const attempts: Attempt[] = [];
  const skipped: SkippedConnector[] = [];
  const used = new Set<string>();

  for (const candidate of candidates) {
    const { connectorId, nodeId } = candidate;
    if (used.has(connectorId)) continue;
    const connector = connectors.get(connectorId);
    const why = ineligibility(connector, normalized) ?? (modeOf(connector!) === mode ? null : 'test_mode_mismatch');
    const threeDs = why ? false : threeDsOf(candidate.require3ds, connector!, normalized);
    if (why || threeDs === 'three_ds_unsupported') {
      skipped.push({ connectorId, nodeId, reason: why ?? 'three_ds_unsupported' });
      continue;
    }
    used.add(connectorId);
    const attempt: Attempt = threeDs ? { ...candidate, threeDs } : candidate;
    attempts.push(connector!.circuit === 'probe_due' ? { ...attempt, probe: true } : attempt);
  }
  return { attempts, mode, matchedNodeId: matched?.id ?? null, skipped };
}
