/** The routing pages' shapes from the API, the payment-method names, and what every tree edit needs. */
import type { Item } from '../../api';
import { label } from '../../format';

export type Profile = Item<'getMerchantRoutingProfiles'>;

export type RoutingNode = Item<'getMerchantRoutingProfilesProfileIdNodes'>;

export type ConnectorOption = Item<'getMerchantConnectors'>;

export const METHODS = ['*', 'credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];

export const methodName = (method: string) => (method === '*' ? 'Every method (*)' : label(method));

export { showValue } from './amounts';

/** What every tree edit needs: the profile's base path, the connectors to pick from, and a reload after a change. */
export interface TreeContext {
  base: string;
  connectors: ConnectorOption[];
  index: Map<string, RoutingNode[]>;
  /** Every node by id (a condition's value reads the conditions above it). */
  byId: Map<string, RoutingNode>;
  manage: boolean;
  changed: (message: string) => void;
  failed: (error: unknown) => void;
}
