// ESLint (flat config): the recommended rules for browser ES modules, with Prettier owning the layout.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";

export default [
  { ignores: ["static/", "node_modules/"] },
  js.configs.recommended,
  prettier,
  {
    files: ["src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["*.js", "*.mjs", "test/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
  {
    rules: {
      // Prettier wraps code at 120 columns; this also catches the long strings and comments it leaves alone.
      "max-len": ["error", { code: 120, ignoreUrls: true }],
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "smart"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];
