import { Type } from '@sinclair/typebox';
import { TOKEN_PURPOSES, TOKEN_STATUSES } from '../../../db/entities';
import { Id, MerchantIdField, Metadata, StrictObject, StringEnum, Timestamp } from '../../http/schema';

/** One compact JWE (docs/vault.md); its content is checked by decryption, not by the schema. */
const Jwe = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'Compact JWE, ECDH-ES + A256GCM, to the session key',
});

export const EncryptedCardInput = StrictObject({
  number: Jwe,
  cvc: Jwe,
  expiryMonth: Jwe,
  expiryYear: Jwe,
  name: Type.Optional(Jwe),
});

const Month = Type.Union([Type.Integer({ minimum: 1, maximum: 12 }), Type.String({ pattern: '^(0?[1-9]|1[0-2])$' })]);
const Year = Type.Union([Type.Integer({ minimum: 2000, maximum: 2999 }), Type.String({ pattern: '^[0-9]{4}$' })]);

export const CardMetadataInput = StrictObject({
  brand: Type.String({ minLength: 1, maxLength: 32 }),
  last4: Type.String({ pattern: '^[0-9]{4}$' }),
  expiryMonth: Month,
  expiryYear: Year,
  bin: Type.String({ pattern: '^[0-9]{6}([0-9]{2})?$', description: 'First 6 or 8 digits' }),
});

export const CreateTokenBody = StrictObject({
  encryptedCard: EncryptedCardInput,
  metadata: CardMetadataInput,
  purpose: Type.Optional(StringEnum(TOKEN_PURPOSES)),
  save_card: Type.Optional(Type.Boolean()),
  additionalMetadata: Type.Optional(Metadata(5 * 1024)),
});

export const TokenParams = StrictObject({ tokenId: Id('tok') });
export const GetTokenQuery = StrictObject({ merchant_id: MerchantIdField });

export const TokenSchema = StrictObject({
  tokenId: Type.String(),
  merchant_id: Type.String(),
  purpose: StringEnum(TOKEN_PURPOSES),
  last4: Type.String(),
  card_brand: Type.String(),
  exp_month: Type.String(),
  exp_year: Type.String(),
  status: StringEnum(TOKEN_STATUSES),
  expires_at: Timestamp,
  created_at: Timestamp,
});
