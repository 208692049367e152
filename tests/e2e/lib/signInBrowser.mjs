// Stands in for the person at the browser in the sign-in e2e: the app starts it as $BROWSER
// with the authorization page's address. It notes the address in $E2E_BROWSER_LOG, then
// "approves" the way a browser would: it follows the test server's redirect back to the app's
// loopback listener.

import fs from "node:fs";

const page = process.argv[2];
const logFile = process.env.E2E_BROWSER_LOG;
if (logFile) fs.appendFileSync(logFile, `${page}\n`);
try {
  const answer = await fetch(page, { redirect: "follow" });
  if (logFile) fs.appendFileSync(logFile, `# came back with ${answer.status}\n`);
} catch (error) {
  if (logFile) fs.appendFileSync(logFile, `# failed: ${error.message}\n`);
  process.exitCode = 1;
}
