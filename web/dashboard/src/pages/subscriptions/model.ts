/** A subscription as the list and its page read it. */
import type { Item } from '../../api';

export type Subscription = Item<'getMerchantSubscriptions'>;
