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
const failed = report.numFailedTests + (report.numFailedTestSuites ?? 0);
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(report.success && failed === 0 && passed > 0 ? 0 : 1);
