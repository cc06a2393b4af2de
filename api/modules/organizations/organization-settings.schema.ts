import { Type } from '@sinclair/typebox';
import { StrictObject } from '../../http/schema';

const TestConnectorsEnabled = Type.Boolean({
  description:
    'In production, whether test-mode connectors (sandbox: they approve without collecting money) can be created for ' +
    "the organization's merchants; off until an owner switches it on. Outside production they always can.",
});

export const OrganizationSettingsObject = StrictObject({ test_connectors_enabled: TestConnectorsEnabled });
export const UpdateOrganizationSettingsBody = StrictObject({
  test_connectors_enabled: Type.Optional(TestConnectorsEnabled),
});
