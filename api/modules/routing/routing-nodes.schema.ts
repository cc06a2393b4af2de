import { Type } from '@sinclair/typebox';
import { CONDITION_FIELDS, CONDITION_OPERATORS, REQUIRE_3DS } from '../../../db/entities';
import { Id, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schema';

const Branch = StringEnum(['then', 'else'] as const);
const ConditionField = StringEnum(CONDITION_FIELDS);
const ConditionOperator = StringEnum(CONDITION_OPERATORS);
const Require3ds = StringEnum(REQUIRE_3DS);
/** Checked per field and operator by routing-nodes.rules.ts (scalar, array for in/not_in, 0..1 for math/random). */
const ConditionValue = Type.Unknown({
  description:
    'Scalar for eq/neq/gt/gte/lt/lte, non-empty array for in/not_in, pattern string for regex, 0..1 for math/random',
});

export const NodeParams = StrictObject({ merchant_id: Id('mrc'), profile_id: Id('rp'), node_id: Id('rn') });

/** What a node says (condition or action), as opposed to where it sits in the tree. */
const nodeContent = {
  condition_field: Type.Optional(Nullable(ConditionField)),
  condition_operator: Type.Optional(Nullable(ConditionOperator)),
  condition_value: Type.Optional(ConditionValue),
  merchant_connector_id: Type.Optional(Nullable(Id('conn'))),
  require_3ds: Type.Optional(Nullable(Require3ds)),
  is_active: Type.Optional(Type.Boolean()),
};

export const CreateNodeBody = StrictObject({
  node_type: StringEnum(['condition', 'action'] as const),
  position: Type.Integer({
    minimum: 0,
    description: '0-based among the siblings; an occupied position shifts the later siblings',
  }),
  parent_node_id: Type.Optional(Nullable(Id('rn'))),
  branch: Type.Optional(Nullable(Branch)),
  ...nodeContent,
});

/** Content only: the place in the tree (parent, branch, position) changes through reorder, the type never. */
export const UpdateNodeBody = StrictObject(nodeContent);

export const ReorderBody = StrictObject({
  parent_node_id: Type.Optional(Nullable(Id('rn'))),
  branch: Type.Optional(Nullable(Branch)),
  ordered_node_ids: Type.Array(Id('rn'), {
    maxItems: 500,
    description: 'The complete current sibling list, in the new order',
  }),
});

export const NodeObject = StrictObject({
  id: Type.String(),
  routing_profile_id: Type.String(),
  parent_node_id: Nullable(Type.String()),
  branch: Nullable(Branch),
  position: Type.Integer(),
  node_type: StringEnum(['condition', 'action'] as const),
  condition_field: Nullable(ConditionField),
  condition_operator: Nullable(ConditionOperator),
  condition_value: Type.Unknown(),
  merchant_connector_id: Nullable(Type.String()),
  connector_name: Nullable(Type.String()),
  require_3ds: Nullable(Require3ds),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
