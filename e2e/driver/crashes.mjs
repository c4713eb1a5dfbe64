// Browser pages lost under a test: WebKit's web process crashed or hung and WebKitWebDriver
// deleted the session ("session deleted because of page crash or hang"). In fresh-clone CI
// runs one to three WebKit tests of about 90 failed that way (a page that never came up, a
// run that never finished), each time other tests, each passing when run again; killing the
// page's WebKitWebProcess gives the same errors (e2e/out/wk-kill.mjs). The backends record
// each loss here; `test` (index.mjs) runs a test once more when one happened under it.

/** Every page lost so far in this process: `{ engine, message, processes, driver_log }`. */
export const lostPages = [];

/** Records that a page of `engine` was lost (its backend calls this once per page). */
export function recordLostPage(loss) {
  lostPages.push(loss);
}
