/**
 * Rule: the Dashboard's API types are the ones openapi-typescript generates from the OpenAPI document the API
 * publishes, so a change to a response schema reaches the Dashboard's typecheck instead of drifting from it.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import { DASHBOARD_TYPES_FILE, renderDashboardTypes } from '../../scripts/lib/dashboard-types';

describe("Rule: the Dashboard's API types are generated from the API's OpenAPI document", () => {
  it('the committed api-types.generated.ts is what the current document generates', async () => {
    const committed = fs.readFileSync(DASHBOARD_TYPES_FILE, 'utf8');
    expect(committed === (await renderDashboardTypes()), 'stale: run npm run gen:dashboard-types').to.equal(true);
  });
});
