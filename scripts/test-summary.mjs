// The plain closing line CI reads ("N passed, N failed") from vitest's JSON report. Run alone
// (`node scripts/test-summary.mjs`), it exits non-zero unless every test passed.
import { readFileSync } from 'node:fs';

/** Prints the line; true when every test passed. */
export function summarize(path) {
  let report;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    console.error(`test-summary: no vitest report found (${path})`);
    return false;
  }
  const passed = report.numPassedTests;
  // Failed tests, plus files that failed without a failed test of their own (a set-up that threw).
  // (numFailedTestSuites counts describe blocks too: a failed test would be counted twice or more.)
  const brokenFiles = report.testResults.filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed'),
  ).length;
  const failed = report.numFailedTests + brokenFiles;
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return report.success && failed === 0 && passed > 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(summarize('.test-results.json') ? 0 : 1);
