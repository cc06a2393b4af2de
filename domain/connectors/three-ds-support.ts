/**
 * Which providers' adapters run 3-D Secure (request it, relay the challenge, read the result). Routing reads it: a
 * node with require_3ds `always` skips a connector whose provider cannot (three_ds_unsupported), `if_supported`
 * authenticates only where it can. Authorize.net's API has no 3-D Secure of its own (it takes results from a
 * separate MPI), so provider_d never authenticates.
 */
const THREE_DS_PROVIDERS: ReadonlySet<string> = new Set(['provider_a']);

export const supportsThreeDs = (providerSlug: string): boolean => THREE_DS_PROVIDERS.has(providerSlug);
