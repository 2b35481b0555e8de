// Bundles the dashboard's entry points (and their CSS) into static/frontend/dist/.
// `npm run build` once; `npm run watch` rebuilds on change while developing.
import { rmSync } from "node:fs";
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");

const options = {
  entryPoints: {
    overview: "src/pages/overview/index.js",
    map: "src/pages/map/index.js",
    scenarios: "src/pages/scenarios/index.js",
    compare: "src/pages/compare/index.js",
    inventory: "src/pages/inventory/index.js",
    style: "src/styles/main.css",
  },
  bundle: true,
  format: "esm",
  splitting: true,
  target: ["chrome110", "firefox115", "safari16"],
  outdir: "static/frontend/dist",
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  assetNames: "assets/[name]-[hash]",
  minify: !watch,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "info",
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  // Start clean so renamed chunks of earlier builds do not pile up in dist/.
  rmSync(options.outdir, { recursive: true, force: true });
  await esbuild.build(options);
}
