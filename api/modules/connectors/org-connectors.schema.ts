/** The organization Dashboard's connector endpoints: the merchant-level shapes, plus how a merchant is named. */
import { Type } from '@sinclair/typebox';
import { Id, PaginationQuery, StrictObject, Timestamp } from '../../http/schema';
import { CreateConnectorBody } from './connectors.schema';

const MerchantId = Id('mrc');

export const OrgConnectorParams = StrictObject({ connector_id: Id('conn') });

export const CreateOrgConnectorBody = StrictObject({
  merchant_id: { ...MerchantId, description: "The organization's merchant the connector is created for" },
  ...CreateConnectorBody.properties,
});

export const ListOrgConnectorsQuery = StrictObject({
  ...PaginationQuery,
  merchant_id: Type.Optional({
    ...MerchantId,
    description: "Only this merchant's connectors (default: all of the organization's)",
  }),
});

export const CredentialCheckObject = StrictObject({
  ok: Type.Boolean({ description: 'Whether the provider accepted the stored credentials' }),
  provider_message: Type.String({ description: 'A fixed-text verdict; never quotes a credential' }),
  checked_at: Timestamp,
});
