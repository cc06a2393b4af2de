export * from './organization';
export * from './merchant';
export * from './api-key';
export * from './customer';

import { OrganizationSchema } from './organization';
import { MerchantSchema } from './merchant';
import { ApiKeySchema } from './api-key';
import { CustomerSchema } from './customer';

export const ENTITIES = [OrganizationSchema, MerchantSchema, ApiKeySchema, CustomerSchema];
