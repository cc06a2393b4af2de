/**
 * Which providers' adapters run 3-D Secure (request it, relay the challenge, read the result). Routing reads it: a
 * node with require_3ds `always` skips a connector whose provider cannot (three_ds_unsupported), `if_supported`
 * authenticates only where it can. provider_a (Stripe), checkout (Checkout.com), provider_c (Mercado Pago) and
 * provider_b (Adyen: its verdict is /payments/details on the redirectResult the buyer's return carries) run it in
 * their own shapes (docs/api-decisions.md, "3-D Secure in each provider's dialect"). Authorize.net's API has no
 * 3-D Secure of its own (it takes results from a separate MPI), so provider_d never authenticates.
 */
const THREE_DS_PROVIDERS: ReadonlySet<string> = new Set(['provider_a', 'checkout', 'provider_c', 'provider_b']);

export const supportsThreeDs = (providerSlug: string): boolean => THREE_DS_PROVIDERS.has(providerSlug);
