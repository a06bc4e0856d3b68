// An import() written here resolves from tools/interop/, so the drivers in scripts/interop/
// load the pinned foreign clients from tools/interop/node_modules, never the root's.
export const load = (specifier) => import(specifier);
