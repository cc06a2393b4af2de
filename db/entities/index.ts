export * from './organization';
export * from './merchant';
export * from './api-key';
export * from './customer';
export * from './product-family';
export * from './product';
export * from './offer';
export * from './offer-price';
export * from './offer-transition';
export * from './checkout';
export * from './merchant-member';
export * from './dashboard-user';
export * from './mail';
export * from './merchant-activity';
export * from './payment-provider';
export * from './connector';
export * from './routing';
export * from './event';
export * from './webhook';
export * from './vault';
export * from './transaction';
export * from './subscription';
export * from './test-clock';
export * from './payment-operation-actor';

import { OrganizationSchema } from './organization';
import { MerchantSchema } from './merchant';
import { ApiKeySchema } from './api-key';
import { CustomerSchema } from './customer';
import { ProductFamilySchema } from './product-family';
import { ProductSchema } from './product';
import { OfferSchema } from './offer';
import { OfferPriceSchema } from './offer-price';
import { OfferTransitionSchema } from './offer-transition';
import { CheckoutEventSchema, CheckoutItemSchema, CheckoutSessionSchema } from './checkout';
import { MerchantMemberSchema, MerchantUserSchema } from './merchant-member';
import {
  AdminUserSchema,
  OrganizationMemberSchema,
  OrganizationUserSchema,
  PasswordResetTokenSchema,
  RefreshTokenSchema,
} from './dashboard-user';
import { MailMessageSchema } from './mail';
import { MerchantActivitySchema } from './merchant-activity';
import { PaymentProviderSchema } from './payment-provider';
import { MerchantConnectorSchema } from './connector';
import { RoutingNodeSchema, RoutingProfileSchema } from './routing';
import { EventSchema } from './event';
import { WebhookConfigSchema, WebhookDeliverySchema } from './webhook';
import { BrowserSessionSchema, CardTokenCvcSchema, CardTokenSchema, PaymentInstrumentSchema } from './vault';
import {
  OrderItemSchema,
  OrderSchema,
  OrderStatusHistorySchema,
  RefundSchema,
  TransactionAttemptSchema,
  TransactionSchema,
} from './transaction';
import { SubscriptionSchema, SubscriptionTransitionSchema } from './subscription';
import { TestClockSchema } from './test-clock';
import { PaymentOperationActorSchema } from './payment-operation-actor';

export const ENTITIES = [
  OrganizationSchema,
  MerchantSchema,
  ApiKeySchema,
  CustomerSchema,
  ProductFamilySchema,
  ProductSchema,
  OfferSchema,
  OfferPriceSchema,
  OfferTransitionSchema,
  CheckoutSessionSchema,
  CheckoutItemSchema,
  CheckoutEventSchema,
  MerchantUserSchema,
  MerchantMemberSchema,
  AdminUserSchema,
  OrganizationUserSchema,
  OrganizationMemberSchema,
  RefreshTokenSchema,
  PasswordResetTokenSchema,
  MailMessageSchema,
  MerchantActivitySchema,
  PaymentProviderSchema,
  MerchantConnectorSchema,
  RoutingProfileSchema,
  RoutingNodeSchema,
  EventSchema,
  WebhookConfigSchema,
  WebhookDeliverySchema,
  BrowserSessionSchema,
  CardTokenSchema,
  CardTokenCvcSchema,
  PaymentInstrumentSchema,
  TransactionSchema,
  TransactionAttemptSchema,
  OrderSchema,
  OrderItemSchema,
  OrderStatusHistorySchema,
  RefundSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  TestClockSchema,
  PaymentOperationActorSchema,
];
