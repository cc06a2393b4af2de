/**
 * Which providers' adapters run 3-D Secure (request it, relay the challenge, read the result). Routing reads it: a
 * node with require_3ds `always` skips a connector whose provider cannot (three_ds_unsupported), `if_supported`
 * authenticates only where it can. provider_a (Stripe), checkout (Checkout.com) and provider_c (Mercado Pago) run it
 * in their own shapes (docs/api-decisions.md, "3-D Secure in each provider's dialect"). Authorize.net's API has no
 * 3-D Secure of its own (it takes results from a separate MPI), so provider_d never authenticates; provider_b does
 * not yet: Adyen's verdict needs the redirectResult the buyer's return carries, which the wait's read does not have.
 */
const THREE_DS_PROVIDERS: ReadonlySet<string> = new Set(['provider_a', 'checkout', 'provider_c']);

export const supportsThreeDs = (providerSlug: string): boolean => THREE_DS_PROVIDERS.has(providerSlug);
