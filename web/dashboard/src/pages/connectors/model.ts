/** The connector pages' shapes from the API, the credential form's fields from the catalog, the webhook flag. */
import type { Item } from '../../api';

export type Connector = Item<'getMerchantConnectors'>;

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
}

/** A catalog entry; the document declares each credential schema as an object, the page reads it as JSON Schema. */
export type Provider = Omit<Item<'getMerchantPaymentProviders'>, 'credential_schemas'> & {
  credential_schemas: Partial<Record<string, JsonSchema>>;
};

/** The list's flag for a connector without a webhook secret: settlement waits for polling. */
export const WEBHOOK_FLAG = 'No webhook secret: polling only';

/** The credential schema for one auth method: a plain object, or the matching branch of a union (oauth2 …). */
export function credentialFields(schema: JsonSchema | undefined): [string, JsonSchema, boolean][] {
  const object = schema?.properties ? schema : schema?.anyOf?.[0];
  if (!object?.properties) return [];
  return Object.entries(object.properties).map(([name, field]) => [
    name,
    field,
    (object.required ?? []).includes(name),
  ]);
}

export const SECRET_NAMES = /secret|password|token|key/i;
