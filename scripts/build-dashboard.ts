/** `npm run build:dashboard`: the Dashboard web app into web/dashboard/dist (npm start and the tests do it too). */
import { buildDashboard } from './lib/dashboard-build';

buildDashboard().then(
  () => console.log('Dashboard built into web/dashboard/dist'),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
