/** When reports go out, in the words the account forms show under the report switches (the service's report job sets the times). */
export const REPORT_SCHEDULE =
  'Reports are e-mailed at 07:00 in the server’s time zone: the daily report every morning for the day before, the weekly report on Mondays for the week before.';
