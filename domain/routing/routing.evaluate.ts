/**
 * The routing engine: one pure function from (program, connector states, charge) to an ordered attempt plan.
 * No I/O, no clock, no randomness — the random draw is an input, so the charge workflow (which draws it
 * deterministically) and the simulate endpoint get the same plan for the same input.
 *
 * Plan = the first action the rules reach (reason 'matched'), then every other action node in evaluation
 * order (reason 'fallback'), then the profile's default connector (reason 'default'). Connectors that are
 * inactive, whose circuit is open, or that can't take the charge's payment method / currency / card brand are
 * skipped (each with its reason), and no connector appears twice.
 */

export type ConditionField =
  'currency' | 'amount' | 'card_brand' | 'bin_country' | 'is_recurring' | 'math/random' | 'installments';
export type ConditionOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'not_in' | 'regex';
export type Require3ds = 'never' | 'if_supported' | 'always';
/** A concrete charge method (a profile's `*` is not a charge method). */
export type ChargePaymentMethod = 'credit_card' | 'debit_card' | 'pix' | 'boleto' | 'wallet';

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
  providerSlug: string;
  /** config.card_brands narrowed to the provider's brands when set, else the provider's brands (lowercase). */
  cardBrands: readonly string[];
  /** The provider's methods: card, pix, boleto, wallet. */
  paymentMethods: readonly string[];
  /** ISO 4217, uppercase. */
  currencies: readonly string[];
  /**
   * The circuit breaker's gate (issue 26): open → skipped (circuit_open); probe_due → planned as the circuit's
   * one half-open probe (the planner must claim it); closed or absent → usable.
   */
  circuit?: 'closed' | 'open' | 'probe_due';
}

export interface ChargeAttributes {
  paymentMethod: ChargePaymentMethod;
  currency: string;
  amount: number;
  cardBrand?: string | null;
  binCountry?: string | null;
  isRecurring: boolean;
  installments: number;
  /** Uniform in [0, 1); compared with math/random conditions. */
  randomDraw: number;
}

export type AttemptReason = 'matched' | 'fallback' | 'default';

export interface Attempt {
  connectorId: string;
  /** The action node that produced the attempt; null for the profile's default connector. */
  nodeId: string | null;
  require3ds: Require3ds;
  reason: AttemptReason;
  /** Set when the attempt would probe an open circuit whose cool-down passed (the planner claims it or drops it). */
  probe?: true;
}

export type SkipReason =
  | 'unknown_connector'
  | 'inactive'
  | 'circuit_open'
  | 'unsupported_payment_method'
  | 'unsupported_currency'
  | 'unsupported_card_brand';

export interface SkippedConnector {
  connectorId: string;
  nodeId: string | null;
  reason: SkipReason;
}

export interface RoutingPlan {
  /** Ordered; the charge tries them in turn while declines are retryable. May be empty. */
  attempts: Attempt[];
  /** The action node the rules selected (even when its connector had to be skipped); null when none matched. */
  matchedNodeId: string | null;
  /** Connectors left out for eligibility, in the order they were considered (for simulate and support). */
  skipped: SkippedConnector[];
}

/** The provider-side method a charge method needs. */
export function providerMethodOf(method: ChargePaymentMethod): string {
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

export function evaluate(
  program: RoutingProgram,
  connectors: ReadonlyMap<string, ConnectorState>,
  charge: ChargeAttributes,
): RoutingPlan {
  const normalized = normalize(charge);
  const matched = firstMatch(program.nodes, normalized);
  const attempts: Attempt[] = [];
  const skipped: SkippedConnector[] = [];
  const used = new Set<string>();

  const consider = (connectorId: string, nodeId: string | null, require3ds: Require3ds, reason: AttemptReason) => {
    if (used.has(connectorId)) return;
    const why = ineligibility(connectors.get(connectorId), normalized);
    if (why) {
      skipped.push({ connectorId, nodeId, reason: why });
      return;
    }
    used.add(connectorId);
    const probe = connectors.get(connectorId)?.circuit === 'probe_due';
    attempts.push({ connectorId, nodeId, require3ds, reason, ...(probe ? { probe: true as const } : {}) });
  };

  if (matched) consider(matched.connectorId, matched.id, matched.require3ds, 'matched');
  for (const action of activeActions(program.nodes)) {
    if (action !== matched) consider(action.connectorId, action.id, action.require3ds, 'fallback');
  }
  consider(program.defaultConnectorId, null, 'never', 'default');
  return { attempts, matchedNodeId: matched?.id ?? null, skipped };
}
