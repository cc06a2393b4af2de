/** Builders for hand-written routing programs in engine tests. */
import type {
  ActionNode,
  ConditionField,
  ConditionNode,
  ConditionOperator,
  ProgramNode,
  Require3ds,
} from '../../domain/routing/routing.evaluate';

export const act = (
  id: string,
  connectorId: string,
  extra: { isActive?: boolean; require3ds?: Require3ds } = {},
): ActionNode => ({
  kind: 'action',
  id,
  connectorId,
  isActive: extra.isActive ?? true,
  require3ds: extra.require3ds ?? 'never',
});

export const cond = (
  id: string,
  field: ConditionField,
  operator: ConditionOperator,
  value: unknown,
  then: ProgramNode[] = [],
  otherwise: ProgramNode[] = [],
  isActive = true,
): ConditionNode => ({ kind: 'condition', id, field, operator, value, then, else: otherwise, isActive });
