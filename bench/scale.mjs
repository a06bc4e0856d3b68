// `npm run bench` measures; `node bench/run.mjs --smoke` (run by `npm test`) takes the same code
// paths with a few hundred calls, so the benchmark cannot rot unnoticed. Smoke figures mean nothing.
export const SMOKE = process.argv.includes('--smoke');
export const pick = (full, smoke) => (SMOKE ? smoke : full);
