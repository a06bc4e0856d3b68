// Prints the plain closing line CI reads ("N passed, N failed") from vitest's JSON report,
// and exits non-zero unless every test passed.
import { readFileSync } from 'node:fs';

let report;
try {
  report = JSON.parse(readFileSync('.test-results.json', 'utf8'));
} catch {
  console.error('test-summary: no vitest report found (.test-results.json)');
  process.exit(1);
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
process.exit(report.success && failed === 0 && passed > 0 ? 0 : 1);
