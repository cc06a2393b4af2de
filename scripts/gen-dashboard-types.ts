/** `npm run gen:dashboard-types`: writes web/dashboard/src/api-types.generated.ts from the API's OpenAPI document. */
import fs from 'node:fs';
import { DASHBOARD_TYPES_FILE, renderDashboardTypes } from './lib/dashboard-types';

void renderDashboardTypes().then((text) => fs.writeFileSync(DASHBOARD_TYPES_FILE, text));
